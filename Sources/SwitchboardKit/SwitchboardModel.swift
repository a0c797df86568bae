import Foundation
import Observation
import Switchboard

/// The client as SwiftUI code reads it: an `@Observable` model on the main actor,
/// holding the manifest in use, its version, the client's mode and the last failure, each
/// changed on the main actor as the client announces it. Put it in the environment and
/// resolve the `URL` that `onOpenURL` hands over (docs/clients.md has the app).
///
/// ```swift
/// @State private var routes = SwitchboardModel(client: client)
/// ...
/// .onOpenURL { url in if let answer = routes.resolve(url) { navigate(to: answer.result) } }
/// ```
@MainActor
@Observable
public final class SwitchboardModel {
    /// The manifest in use, nil until the cached or bundled copy is read (or, without
    /// either, the server has answered).
    public private(set) var manifest: ManifestInUse?
    /// Whether the client follows the server now.
    public private(set) var mode: SwitchboardClient.Mode
    /// The last update that failed, nil once a manifest is adopted after it.
    public private(set) var lastFailure: ClientFailure?
    /// The client it follows.
    @ObservationIgnored public let client: SwitchboardClient
    @ObservationIgnored private var watching: [Task<Void, Never>] = []

    /// The version of the manifest in use.
    public var version: Int64? { manifest?.version }

    /// Follows `client` from now on: its manifest in use, then each update and mode change.
    public init(client: SwitchboardClient) {
        self.client = client
        manifest = client.current
        mode = client.mode
        let updates = client.updates()
        let (modes, continuation) = AsyncStream.makeStream(of: SwitchboardClient.Mode.self, bufferingPolicy: .bufferingNewest(8))
        let subscription = client.onModeChange { continuation.yield($0) }
        // Each task holds the model weakly between updates: a model let go stops following
        // at the client's next update or mode change.
        watching.append(Task { [weak self] in
            for await update in updates {
                guard let self else { return }
                self.apply(update)
            }
        })
        watching.append(Task { [weak self] in
            for await mode in modes {
                guard let self else { break }
                self.mode = mode
            }
            subscription.cancel()
        })
    }

    /// What the manifest in use resolves `url` to, in `context` (the client's when nil).
    public func resolve(_ url: URL, context: ResolveContext? = nil) -> SwitchboardClient.Answer? {
        client.resolve(url, context: context)
    }

    /// What the manifest in use resolves `url` to, in `context` (the client's when nil).
    public func resolve(_ url: String, context: ResolveContext? = nil) -> SwitchboardClient.Answer? {
        client.resolve(url, context: context)
    }

    private func apply(_ update: ClientUpdate) {
        switch update {
        case .adopted(let adopted):
            manifest = adopted
            lastFailure = nil
        case .failed(let failure):
            lastFailure = failure
        }
    }
}
