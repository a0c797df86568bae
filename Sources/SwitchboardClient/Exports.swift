// What the client's public API names, visible with `import SwitchboardClient` alone: the
// resolution and what it is made of, the context, versions, the compiled manifest a
// manifest in use holds. The rest of `Switchboard` (diffs, reports, validation) is the
// CLI's and the server's, and stays out of an app's namespace.
@_exported import struct Switchboard.Resolution
@_exported import struct Switchboard.ResolveContext
@_exported import struct Switchboard.SemanticVersion
@_exported import class Switchboard.CompiledManifest
@_exported import struct Switchboard.Presentation
@_exported import enum Switchboard.JSONValue
@_exported import struct Switchboard.Explanation
@_exported import struct Switchboard.ManifestError
@_exported import struct Switchboard.ManifestDiagnostic
// The logger type the configuration takes, so that an app passes one without `import Logging`.
@_exported import struct Logging.Logger
