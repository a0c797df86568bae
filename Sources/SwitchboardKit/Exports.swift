// What the client's public API names, visible with `import SwitchboardKit` alone: the
// resolution and what it is made of, the context, versions, the compiled manifest a
// manifest in use holds. None of these names is one Apple's SDKs export, so a file that
// imports SwiftUI, UIKit or os beside this module reads each name one way. The rest of the
// engine is `package`; diffs, reports and validation live in SwitchboardTooling, which an
// app does not link. The configuration's logger is swift-log's `Logging.Logger`, not
// re-exported: `os.Logger` is the `Logger` an app's files mean.
@_exported import struct Switchboard.Resolution
@_exported import struct Switchboard.ResolveContext
@_exported import struct Switchboard.SemanticVersion
@_exported import class Switchboard.CompiledManifest
@_exported import struct Switchboard.Presentation
@_exported import enum Switchboard.JSONValue
@_exported import struct Switchboard.Explanation
@_exported import struct Switchboard.ManifestError
@_exported import struct Switchboard.ManifestDiagnostic
