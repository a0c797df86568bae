/// A request that is not someone opening a link, counted apart by `traffic` and
/// `diff --traffic` (unless `--include-bots`): crawlers and scripts by their user agent,
/// files a page loads, the paths platforms and browsers ask for themselves, and scanners'
/// probes. Kept out, they neither inflate a route's hits nor fill "links that go nowhere".
package enum NotALink: String, Sendable, CaseIterable {
    case bot
    /// `.css`, `.js`, images, fonts, media.
    case staticFile = "static"
    /// `/.well-known/`, `/favicon.ico`, `/robots.txt`, `/apple-app-site-association`, sitemaps.
    case wellKnown = "well-known"
    /// Probes for software the app does not run (`/wp-admin`, `/.git`, `/phpmyadmin`, `.php`).
    case scanner

    /// What `record` is when it is not a link, nil when it is one.
    package static func classify(_ record: TrafficRecord) -> NotALink? {
        if let agent = record.agent, isBot(agent) { return .bot }
        let (_, path, _) = TrafficShape.split(record.url)
        let lower = path.lowercased()
        if lower.hasPrefix("/.well-known/") || wellKnownPaths.contains(lower) { return .wellKnown }
        if scannerPrefixes.contains(where: { lower.hasPrefix($0) }) { return .scanner }
        let last = lower.split(separator: "/").last ?? ""
        if let dot = last.lastIndex(of: ".") {
            let ext = last[last.index(after: dot)...]
            if scannerExtensions.contains(String(ext)) { return .scanner }
            if staticExtensions.contains(String(ext)) { return .staticFile }
        }
        return nil
    }

    static let wellKnownPaths: Set<String> = ["/favicon.ico", "/robots.txt", "/apple-app-site-association", "/sitemap.xml",
                                             "/humans.txt", "/ads.txt", "/app-ads.txt", "/security.txt", "/browserconfig.xml",
                                             "/apple-touch-icon.png", "/apple-touch-icon-precomposed.png", "/manifest.json",
                                             "/site.webmanifest", "/crossdomain.xml"]
    static let scannerPrefixes = ["/wp-", "/wordpress", "/phpmyadmin", "/pma/", "/.git", "/.env", "/.aws", "/.ssh", "/.svn", "/.hg",
                                  "/.ds_store", "/cgi-bin", "/xmlrpc", "/boaform", "/actuator", "/vendor/phpunit", "/server-status",
                                  "/hnap1", "/owa/", "/autodiscover", "/solr/", "/console/", "/manager/html", "/_ignition", "/telescope",
                                  "/.vscode", "/.idea", "/config.json", "/admin.php", "/shell", "/setup.cgi"]
    static let scannerExtensions: Set<String> = ["php", "asp", "aspx", "jsp", "cgi", "env", "bak", "sql", "ini", "yml", "yaml"]
    static let staticExtensions: Set<String> = ["css", "js", "mjs", "map", "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "avif",
                                                "bmp", "woff", "woff2", "ttf", "otf", "eot", "mp4", "webm", "mp3", "wav", "ogg",
                                                "pdf", "zip", "gz", "txt", "xml", "json", "wasm"]

    /// Crawlers, link previews, monitors, scanners and HTTP libraries used by scripts, by a
    /// word of their user agent (compared without case). An app's own HTTP stack (okhttp,
    /// CFNetwork, Dalvik) is a person opening a link, and is not here.
    static let botWords = ["bot", "crawl", "spider", "slurp", "facebookexternalhit", "embedly", "preview", "curl/", "wget/",
                           "python-requests", "python-urllib", "aiohttp", "go-http-client", "java/", "libwww", "httpie", "headlesschrome",
                           "phantomjs", "scrapy", "pingdom", "uptime", "monitor", "zgrab", "masscan", "nmap", "nikto", "sqlmap",
                           "node-fetch", "axios/", "lighthouse", "whatsapp", "telegram", "discord", "validator", "scanner",
                           "switchboard-"]

    static func isBot(_ agent: String) -> Bool {
        let lower = agent.lowercased()
        return botWords.contains { lower.contains($0) }
    }
}
