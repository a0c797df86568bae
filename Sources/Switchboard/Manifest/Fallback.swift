/// Where an internal URL that no route matches goes.
public struct Fallback: Sendable {
    public let destination: String
    public let presentation: Presentation

    public static let `default` = Fallback(destination: "WebView", presentation: .web)
}
