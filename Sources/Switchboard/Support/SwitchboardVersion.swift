/// The release of Switchboard this build is: `switchboard --version` prints it, the server
/// logs it at start, and the TypeScript package's `package.json` carries the same number
/// (a test holds them equal). Semantic versioning: the manifest format, the HTTP API and
/// the result JSON change incompatibly only with the major number. CHANGELOG.md lists
/// what each release brought; RELEASING in docs/operations.md is how one is cut.
public enum SwitchboardVersion {
    public static let current = "1.0.0"
}
