/// Where an internal URL that no route matches goes.
package struct Fallback: Sendable {
    package let destination: String
    package let presentation: Presentation

    package static let `default` = Fallback(destination: "WebView", presentation: .web)
}
