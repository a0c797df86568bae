import Foundation
import Testing
import TestSupport

/// `Config/kubernetes` rendered as `kubectl apply -k` would (no cluster here): the
/// resources the kustomization lists, the ConfigMap it generates, and the references
/// between them held against what the server needs.
struct KubernetesTests {
    static let folder = CLI.packageRoot.appendingPathComponent("Config/kubernetes")

    static func read(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    static func map(_ value: Any?, _ key: String) throws -> [String: Any] {
        try #require((value as? [String: Any])?[key] as? [String: Any], "no mapping at \(key)")
    }

    static func list(_ value: Any?, _ key: String) throws -> [Any] {
        try #require((value as? [String: Any])?[key] as? [Any], "no sequence at \(key)")
    }

    /// The kustomization's resources by kind, and the ConfigMap it generates (name, data).
    struct Rendered {
        var resources: [String: [String: Any]] = [:]
        var configMap: (name: String, data: [String: String]) = ("", [:])
    }

    static func render() throws -> Rendered {
        let kustomization = try #require(try YAML.documents(read("kustomization.yaml")).first as? [String: Any])
        #expect(kustomization["kind"] as? String == "Kustomization")
        var rendered = Rendered()
        for case let file as String in try list(kustomization, "resources") {
            for case let document as [String: Any] in try YAML.documents(read(file)) {
                let kind = try #require(document["kind"] as? String, "\(file) has no kind")
                #expect(rendered.resources[kind] == nil, "two \(kind)s")
                rendered.resources[kind] = document
            }
        }
        let generators = try list(kustomization, "configMapGenerator")
        #expect(generators.count == 1)
        let generator = try #require(generators.first as? [String: Any])
        var data: [String: String] = [:]
        for case let file as String in try list(generator, "files") {
            let parts = file.split(separator: "=", maxSplits: 1).map(String.init)
            data[parts[0]] = try read(parts.count == 2 ? parts[1] : parts[0])
        }
        rendered.configMap = (try #require(generator["name"] as? String), data)
        // Without a hash suffix the generated name is the name written, so an edit updates
        // the ConfigMap in place (a volume update, hot-reloaded) instead of rolling out.
        #expect(try map(kustomization, "generatorOptions")["disableNameSuffixHash"] as? String == "true")
        return rendered
    }

    @Test func theKustomizationListsTheWholeDeployment() throws {
        let rendered = try Self.render()
        #expect(Set(rendered.resources.keys) == ["Deployment", "Service", "PodDisruptionBudget", "HorizontalPodAutoscaler"])
    }

    @Test func theGeneratedConfigMapHoldsTheBundledManifest() throws {
        let rendered = try Self.render()
        let manifest = try #require(rendered.configMap.data["routes.json"])
        let bundled = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Config/routes.json"), encoding: .utf8)
        #expect(manifest == bundled, "Config/kubernetes/routes.json differs from Config/routes.json: copy it over (kustomize reads only files below its folder)")
        let file = try CLI.temporaryFile(manifest, name: "routes.json")
        let check = try CLI.run(["check", file])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test func theDeploymentMountsTheConfigMapAsAFolderAndProbesTheServer() throws {
        let rendered = try Self.render()
        let deployment = try #require(rendered.resources["Deployment"])
        let spec = try Self.map(deployment, "spec")
        #expect(spec["replicas"] == nil, "the HorizontalPodAutoscaler owns the replica count")
        let template = try Self.map(spec, "template")
        let podLabels = try Self.map(Self.map(template, "metadata"), "labels") as? [String: String]
        #expect(try Self.map(Self.map(spec, "selector"), "matchLabels") as? [String: String] == podLabels)
        let pod = try Self.map(template, "spec")
        let container = try #require(try Self.list(pod, "containers").first as? [String: Any])
        var environment: [String: String] = [:]
        for case let variable as [String: Any] in try Self.list(container, "env") {
            environment[variable["name"] as? String ?? ""] = variable["value"] as? String
        }
        let config = try #require(environment["SWITCHBOARD_CONFIG"])
        #expect(environment["SWITCHBOARD_HOST"] == "0.0.0.0")
        // Behind its ingress every peer is an ingress pod: their ranges are trusted, and
        // the server starts with them (a range it refused would stop the pod).
        let trusted = try #require(environment["SWITCHBOARD_TRUSTED_PROXIES"])
        #expect(trusted.contains("10.0.0.0/8") && trusted.contains("127.0.0.6"))
        let started = try Subprocess.bash("timeout 3 '\(Subprocess.switchboard.path)' serve --port 0 --config Config/routes.json",
                                          environment: ["SWITCHBOARD_TRUSTED_PROXIES": trusted])
        #expect(started.stderr.contains(#""trusted_proxies":"10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,127.0.0.6/32,fd00::/8""#), "\(started.stderr)")

        // The ConfigMap's volume is mounted as the manifest's folder, never by subPath
        // (a subPath mount is never updated, so the manifest would never reload).
        let volume = try #require(try Self.list(pod, "volumes").compactMap { $0 as? [String: Any] }
            .first { (try? Self.map($0, "configMap")["name"] as? String) == rendered.configMap.name })
        let mount = try #require(try Self.list(container, "volumeMounts").compactMap { $0 as? [String: Any] }
            .first { $0["name"] as? String == volume["name"] as? String })
        #expect(mount["subPath"] == nil)
        let mountPath = try #require(mount["mountPath"] as? String)
        #expect(config == mountPath + "/" + "routes.json" && rendered.configMap.data["routes.json"] != nil)

        // Probes on the container's named port, which is the port the server listens on.
        let ports = try Self.list(container, "ports").compactMap { $0 as? [String: Any] }
        let http = try #require(ports.first { $0["name"] as? String == "http" })
        #expect(http["containerPort"] as? String == environment["SWITCHBOARD_PORT"])
        let readiness = try Self.map(Self.map(container, "readinessProbe"), "httpGet")
        let liveness = try Self.map(Self.map(container, "livenessProbe"), "httpGet")
        #expect(readiness["path"] as? String == "/readyz" && readiness["port"] as? String == "http")
        #expect(liveness["path"] as? String == "/healthz" && liveness["port"] as? String == "http")
        // The autoscaler's utilization is a share of the CPU request: there must be one.
        #expect(try Self.map(Self.map(container, "resources"), "requests")["cpu"] != nil)
    }

    /// Pod Security "restricted" (the profile's checks, field by field), and what platform
    /// teams expect beside it: no API token, a read-only root, replicas spread, scraped.
    @Test func thePodPassesPodSecurityRestricted() throws {
        let deployment = try #require(try Self.render().resources["Deployment"])
        let template = try Self.map(Self.map(deployment, "spec"), "template")
        let pod = try Self.map(template, "spec")
        let podSecurity = try Self.map(pod, "securityContext")
        for forbidden in ["hostNetwork", "hostPID", "hostIPC"] { #expect(pod[forbidden] == nil, "\(forbidden)") }
        for case let volume as [String: Any] in try Self.list(pod, "volumes") {
            #expect(Set(volume.keys).isSubset(of: ["name", "configMap", "secret", "emptyDir", "projected", "downwardAPI", "persistentVolumeClaim"]),
                    "a volume type restricted forbids: \(volume.keys)")
        }
        #expect(pod["automountServiceAccountToken"] as? String == "false")
        let containers = try Self.list(pod, "containers").compactMap { $0 as? [String: Any] }
        #expect(!containers.isEmpty)
        for container in containers {
            let security = try Self.map(container, "securityContext")
            #expect(security["privileged"] == nil || security["privileged"] as? String == "false")
            #expect(security["allowPrivilegeEscalation"] as? String == "false")
            #expect(try Self.list(Self.map(security, "capabilities"), "drop").contains { $0 as? String == "ALL" })
            #expect(try Self.map(security, "capabilities")["add"] == nil)
            // Non-root and the runtime's seccomp profile, on the container or the pod.
            #expect((security["runAsNonRoot"] ?? podSecurity["runAsNonRoot"]) as? String == "true")
            #expect(Int(((security["runAsUser"] ?? podSecurity["runAsUser"]) as? String) ?? "") ?? 0 > 0)
            let seccomp = (security["seccompProfile"] ?? podSecurity["seccompProfile"]) as? [String: Any]
            #expect(seccomp?["type"] as? String == "RuntimeDefault")
            #expect(security["readOnlyRootFilesystem"] as? String == "true")
            #expect(container["ports"].map { ports in (ports as? [Any])?.allSatisfy { ($0 as? [String: Any])?["hostPort"] == nil } == true } ?? true)
        }
        // Spread over nodes and zones, selecting this Deployment's own pods.
        let labels = try Self.map(Self.map(template, "metadata"), "labels") as? [String: String]
        let spread = try Self.list(pod, "topologySpreadConstraints").compactMap { $0 as? [String: Any] }
        #expect(Set(spread.compactMap { $0["topologyKey"] as? String }) == ["kubernetes.io/hostname", "topology.kubernetes.io/zone"])
        #expect(try spread.allSatisfy { try Self.map($0, "labelSelector")["matchLabels"] as? [String: String] == labels })
        // Scraped where the server serves its metrics.
        let annotations = try Self.map(Self.map(template, "metadata"), "annotations") as? [String: String]
        #expect(annotations?["prometheus.io/scrape"] == "true" && annotations?["prometheus.io/path"] == "/metrics")
        #expect(annotations?["prometheus.io/port"] == "8080")
    }

    /// A rollout refuses nothing: the preStop pause, then the server's drain (its
    /// `SWITCHBOARD_DRAIN_SECONDS`), then up to 10 s for requests in flight, all within
    /// the grace period; held polls are granted under the proxies' timeouts.
    @Test func theDrainFitsTheGracePeriod() throws {
        let deployment = try #require(try Self.render().resources["Deployment"])
        let pod = try Self.map(Self.map(Self.map(deployment, "spec"), "template"), "spec")
        let container = try #require(try Self.list(pod, "containers").first as? [String: Any])
        let command = try Self.list(Self.map(Self.map(Self.map(container, "lifecycle"), "preStop"), "exec"), "command").compactMap { $0 as? String }
        #expect(command.first == "sleep")
        let pause = try #require(Int(command.last ?? ""))
        var environment: [String: String] = [:]
        for case let variable as [String: Any] in try Self.list(container, "env") {
            environment[variable["name"] as? String ?? ""] = variable["value"] as? String
        }
        let drain = try #require(Int(environment["SWITCHBOARD_DRAIN_SECONDS"] ?? ""))
        let grace = try #require(Int(pod["terminationGracePeriodSeconds"] as? String ?? ""))
        #expect(pause >= 5 && drain >= 5, "endpoints take seconds to be removed")
        #expect(pause + drain + 10 < grace, "preStop \(pause) s + drain \(drain) s + 10 s in flight within \(grace) s")
        #expect(Int(environment["SWITCHBOARD_MAX_WAIT"] ?? "") ?? 99 <= 25)
        // The NetworkPolicy example reads as one, for this Deployment's pods.
        let policy = try #require(try YAML.documents(Self.read("networkpolicy.yaml")).first as? [String: Any])
        #expect(policy["kind"] as? String == "NetworkPolicy")
        let labels = try Self.map(Self.map(Self.map(Self.map(deployment, "spec"), "template"), "metadata"), "labels") as? [String: String]
        #expect(try Self.map(Self.map(policy, "spec"), "podSelector")["matchLabels"] as? [String: String] == labels)
    }

    /// The memory limit holds the wake-up of every held poll a pod takes (`--max-live`):
    /// docs/benchmarks.md measures 36.8 MiB idle and about 22 KiB a poll at the peak after a
    /// push; a 10,000-route manifest beside the one it replaces needs 50 MiB more.
    @Test func theMemoryLimitFitsTheWakeUpOfEveryHeldPoll() throws {
        let deployment = try #require(try Self.render().resources["Deployment"])
        let pod = try Self.map(Self.map(Self.map(deployment, "spec"), "template"), "spec")
        let container = try #require(try Self.list(pod, "containers").first as? [String: Any])
        var environment: [String: String] = [:]
        for case let variable as [String: Any] in try Self.list(container, "env") {
            environment[variable["name"] as? String ?? ""] = variable["value"] as? String
        }
        let live = try #require(Int(environment["SWITCHBOARD_MAX_LIVE"] ?? ""), "the Deployment caps held polls")
        let limit = try #require(try Self.map(Self.map(container, "resources"), "limits")["memory"] as? String)
        let mebibytes = try #require(limit.hasSuffix("Mi") ? Double(limit.dropLast(2)) : nil, "\(limit)")
        let needed = 36.8 + Double(live) * 22 / 1024 + 50
        #expect(needed * 1.15 <= mebibytes, "\(live) held polls need \(needed) MiB at the wake-up, with headroom; the limit is \(limit)")
    }

    /// Config/proxies/ingress-nginx.yaml (not run here: no cluster) routes the public paths to
    /// this Service's port, keeps /metrics and /readyz inside, and waits past --max-wait; its
    /// second Ingress routes the website's association files, and nothing else, to it.
    @Test func theIngressRecipeFitsTheService() throws {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Config/proxies/ingress-nginx.yaml"), encoding: .utf8)
        let documents = try YAML.documents(text).compactMap { $0 as? [String: Any] }
        #expect(documents.count == 2 && documents.allSatisfy { $0["kind"] as? String == "Ingress" })
        let ingress = try #require(documents.first)
        let annotations = try Self.map(ingress, "metadata")["annotations"] as? [String: String] ?? [:]
        #expect(Int(annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] ?? "") ?? 0 > 27)
        let service = try #require(try Self.render().resources["Service"])
        let serviceName = try Self.map(service, "metadata")["name"] as? String
        let portNames = try Self.list(Self.map(service, "spec"), "ports").compactMap { ($0 as? [String: Any])?["name"] as? String }
        func paths(_ ingress: [String: Any]) throws -> [String] {
            let rule = try #require(try Self.list(Self.map(ingress, "spec"), "rules").first as? [String: Any])
            var paths: [String] = []
            for case let path as [String: Any] in try Self.list(Self.map(rule, "http"), "paths") {
                let backend = try Self.map(Self.map(path, "backend"), "service")
                #expect(backend["name"] as? String == serviceName)
                #expect(portNames.contains(try Self.map(backend, "port")["name"] as? String ?? ""))
                paths.append("\(path["pathType"] as? String ?? "") \(path["path"] as? String ?? "")")
            }
            return paths.sorted()
        }
        // Nothing that would also match /metrics or /readyz.
        #expect(try paths(ingress) == ["Exact /", "Prefix /ui", "Prefix /v1"])
        #expect(try paths(documents[1]) == ["Exact /.well-known/apple-app-site-association", "Exact /.well-known/assetlinks.json",
                                            "Exact /apple-app-site-association"])
    }

    @Test func serviceBudgetAndAutoscalerPointAtTheDeployment() throws {
        let rendered = try Self.render()
        let deployment = try #require(rendered.resources["Deployment"])
        let name = try Self.map(deployment, "metadata")["name"] as? String
        let podLabels = try Self.map(Self.map(Self.map(Self.map(deployment, "spec"), "template"), "metadata"), "labels") as? [String: String]
        let service = try #require(rendered.resources["Service"])
        #expect(try Self.map(service, "spec")["selector"] as? [String: String] == podLabels)
        #expect(try Self.list(Self.map(service, "spec"), "ports").contains { ($0 as? [String: Any])?["targetPort"] as? String == "http" })
        let budget = try #require(rendered.resources["PodDisruptionBudget"])
        #expect(try Self.map(Self.map(budget, "spec"), "selector")["matchLabels"] as? [String: String] == podLabels)
        let autoscaler = try #require(rendered.resources["HorizontalPodAutoscaler"])
        let target = try Self.map(Self.map(autoscaler, "spec"), "scaleTargetRef")
        #expect(target["kind"] as? String == "Deployment" && target["name"] as? String == name)
        let metric = try #require(try Self.list(Self.map(autoscaler, "spec"), "metrics").first as? [String: Any])
        #expect(try Self.map(metric, "resource")["name"] as? String == "cpu")
        #expect(Int(try Self.map(autoscaler, "spec")["minReplicas"] as? String ?? "") ?? 0 >= 2)
    }

    @Test func theYAMLReaderReadsWhatTheFilesUse() throws {
        let documents = try YAML.documents("""
            # comment
            a: 1 # trailing
            b:
              - x
              - "y # not a comment"
              - k: v
                l: w
            c:
            - one
            ---
            d: 'e'
            """)
        #expect(documents.count == 2)
        let first = try #require(documents.first as? [String: Any])
        #expect(first["a"] as? String == "1")
        let b = try #require(first["b"] as? [Any])
        #expect(b.count == 3 && b[1] as? String == "y # not a comment")
        #expect((b[2] as? [String: Any])?["l"] as? String == "w")
        #expect(first["c"] as? [String] == ["one"])
        #expect((documents[1] as? [String: Any])?["d"] as? String == "e")
        #expect(throws: YAML.Error.self) { try YAML.documents("a: 1\n  b: 2\n") }
    }
}
