/// The apps whose links the manifest's routes are (`apps` in docs/manifest.md): what the
/// association files the server serves name, and what `verify-domain` expects a domain to
/// name. Not part of what clients resolve with: the canonical form leaves it out, so it
/// never changes the manifest's ETag.
package struct Apps: Sendable, Equatable {
    /// Apple app IDs: a 10-character team ID, a dot and a bundle ID (`ABCDE12345.net.artsy.artsy`).
    package let appleAppIDs: [String]
    package let android: [AndroidApp]

    package struct AndroidApp: Sendable, Equatable {
        /// A Java package name (`net.artsy.app`).
        package let package: String
        /// SHA-256 fingerprints of its signing certificates: 32 uppercase hex pairs joined by colons.
        package let sha256CertFingerprints: [String]

        package init(package: String, sha256CertFingerprints: [String]) {
            self.package = package
            self.sha256CertFingerprints = sha256CertFingerprints
        }
    }

    /// Whether `text` is an Apple app ID: a team ID of 10 uppercase letters and digits, a
    /// dot, and a bundle ID of letters, digits, hyphens and dots.
    package static func isAppleAppID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count > 11, bytes[10] == UInt8(ascii: "."),
              bytes[..<10].allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else { return false }
        let bundle = bytes[11...]
        return bundle.first != UInt8(ascii: ".") && bundle.last != UInt8(ascii: ".")
            && bundle.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E }
    }

    /// Whether `text` is a SHA-256 certificate fingerprint as Android writes it: 32 pairs of
    /// uppercase hex digits joined by colons.
    package static func isFingerprint(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 95 else { return false }
        for (i, byte) in bytes.enumerated() {
            if i % 3 == 2 {
                guard byte == UInt8(ascii: ":") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) else { return false }
            }
        }
        return true
    }

    /// Whether `text` is a Java package name as Android takes it: two or more segments
    /// joined by dots, each a letter then letters, digits or underscores.
    package static func isPackageName(_ text: String) -> Bool {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        return segments.count >= 2 && segments.allSatisfy { segment in
            guard let first = segment.utf8.first, first | 0x20 >= 0x61 && first | 0x20 <= 0x7A else { return false }
            return segment.utf8.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        }
    }
}

extension ManifestDecoder {
    /// `apps`: `{"apple": {"appIDs": [...]}, "android": [{"package", "sha256CertFingerprints"}]}`,
    /// each value checked, with its pointer.
    mutating func decodeApps(_ value: JSONValue?, _ pointer: JSONPointer) -> Apps? {
        guard let value else { return nil }
        guard let members = value.objectMembers else {
            error(.typeMismatch, pointer, "\"apps\" must be an object with \"apple\" and \"android\", not \(value.kindDescription)")
            return nil
        }
        checkKeys(members, pointer, known: ["apple", "android"])
        var appleAppIDs: [String] = []
        if let apple = value["apple"] {
            let applePointer = pointer.appending("apple")
            if let appleMembers = apple.objectMembers {
                checkKeys(appleMembers, applePointer, known: ["appIDs"])
                let ids = stringList(apple["appIDs"], applePointer.appending("appIDs")) ?? []
                if apple["appIDs"] == nil { error(.missingField, applePointer.appending("appIDs"), "\"appIDs\" is required: the Apple app IDs, such as \"ABCDE12345.net.artsy.artsy\"") }
                // By position in the array as written (an item that is not a string has its own error).
                for (i, item) in (apple["appIDs"]?.arrayValue ?? []).enumerated() {
                    guard let id = item.stringValue, !Apps.isAppleAppID(id) else { continue }
                    error(.invalidApp, applePointer.appending("appIDs").appending(i),
                          "\"\(id)\" is not an Apple app ID: a team ID of 10 uppercase letters and digits, a dot, and a bundle ID")
                }
                appleAppIDs = ids
            } else {
                error(.typeMismatch, applePointer, "\"apple\" must be an object with \"appIDs\", not \(apple.kindDescription)")
            }
        }
        var android: [Apps.AndroidApp] = []
        if let list = value["android"] {
            let androidPointer = pointer.appending("android")
            if case .array(let items) = list {
                for (i, item) in items.enumerated() {
                    let itemPointer = androidPointer.appending(i)
                    guard let itemMembers = item.objectMembers else {
                        error(.typeMismatch, itemPointer, "an Android app must be an object with \"package\" and \"sha256CertFingerprints\", not \(item.kindDescription)")
                        continue
                    }
                    checkKeys(itemMembers, itemPointer, known: ["package", "sha256CertFingerprints"])
                    let package = item["package"]?.stringValue
                    if package == nil {
                        error(.missingField, itemPointer.appending("package"), "\"package\" is required: the app's Java package name, such as \"net.artsy.app\"")
                    } else if let package, !Apps.isPackageName(package) {
                        error(.invalidApp, itemPointer.appending("package"), "\"\(package)\" is not a Java package name (segments of a letter, then letters, digits or '_', joined by dots)")
                    }
                    let fingerprintsPointer = itemPointer.appending("sha256CertFingerprints")
                    let fingerprints = stringList(item["sha256CertFingerprints"], fingerprintsPointer) ?? []
                    if item["sha256CertFingerprints"] == nil || item["sha256CertFingerprints"]?.arrayValue?.isEmpty == true {
                        error(.missingField, fingerprintsPointer, "\"sha256CertFingerprints\" must list at least one SHA-256 certificate fingerprint")
                    }
                    for (j, item) in (item["sha256CertFingerprints"]?.arrayValue ?? []).enumerated() {
                        guard let fingerprint = item.stringValue, !Apps.isFingerprint(fingerprint) else { continue }
                        error(.invalidApp, fingerprintsPointer.appending(j),
                              "\"\(fingerprint)\" is not a SHA-256 certificate fingerprint: 32 pairs of uppercase hex digits joined by colons")
                    }
                    if let package { android.append(Apps.AndroidApp(package: package, sha256CertFingerprints: fingerprints)) }
                }
            } else {
                error(.typeMismatch, androidPointer, "\"android\" must be an array of apps, not \(list.kindDescription)")
            }
        }
        return Apps(appleAppIDs: appleAppIDs, android: android)
    }
}
