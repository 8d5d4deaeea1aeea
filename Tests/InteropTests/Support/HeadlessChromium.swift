import CourierTestSupport
import Foundation

/// Debian's Chromium, headless, opening a saved page with no network at all: what a person reading
/// the page offline would see. `scripts/setup.sh --tests` installs it (package `chromium`).
///
/// ```swift
/// let report = try HeadlessChromium.loadReport(forPageAt: savedPage)
/// XCTAssertEqual(report.images, [true, true, true])
/// ```
///
/// No traffic leaves the browser, loopback included: every URL goes to a proxy at 127.0.0.1:9,
/// and every host name (the proxy's too) resolves to nothing, so a request fails before a socket
/// opens. Checked on Chromium 156 with a listening "proxy" instead: without the host rules it
/// receives the page's http:// images (127.0.0.1 too, through `<-loopback>`) and Chromium's own
/// update and time checks, which no `--disable-…` flag stops; with them, nothing. Where this
/// process may make a network namespace (`unshare -n`, as root), Chromium runs in an empty one
/// as well. One run takes about a second.
enum HeadlessChromium {
    /// Chromium is not installed: the tests that need it fail with this.
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "headless Chromium: no `chromium` in PATH, /usr/bin or /usr/local/bin; the web-page tests open saved "
                + "pages in it: run scripts/setup.sh --tests (it installs Debian's chromium package)"
        }
    }

    /// Chromium ran but did not give what was asked.
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// What loaded in a page (``loadReport(forPageAt:encoding:)``).
    struct LoadReport: Equatable, Sendable {
        /// For each `<img>` of the page (not of its frames), in document order: whether it loaded
        /// and decoded (`decode()` resolved: `naturalWidth` is 0 for a 2-pixel image Chromium
        /// chose as a srcset's 3x candidate, which it does when the candidates are data: URLs).
        var images: [Bool]
        /// For each `url()` in an element's computed `background-image`, in document order:
        /// whether that URL loads and decodes as an image. A page cannot ask the browser
        /// whether a background was painted, so each URL is loaded again with `new Image()`:
        /// the same URL, the same offline browser. An element whose stylesheet did not load has
        /// no background, so a missing stylesheet shows as a shorter list.
        var backgroundImages: [Bool]
    }

    /// The `chromium` program.
    /// - Throws: ``Missing``.
    static func locate() throws -> URL {
        do {
            return try ExternalTool.locate("chromium")
        } catch {
            throw Missing()
        }
    }

    /// What loaded in the page at `file` (a local HTML file whose resources, if any, are local
    /// files or `data:` URLs). A copy of the page with a script appended (in `encoding`, the
    /// page's own) is opened beside it, so that relative URLs resolve as they do for the page,
    /// and removed afterwards.
    /// - Throws: ``Missing``; ``Failed`` when Chromium fails or the script never reports.
    static func loadReport(forPageAt file: URL, encoding: String.Encoding = .utf8) throws -> LoadReport {
        guard let script = reportScript.data(using: encoding) else {
            throw Failed(description: "headless Chromium: the report script cannot be written in \(encoding)")
        }
        let copy = file.deletingLastPathComponent().appendingPathComponent(
            ".courier-chromium-\(UUID().uuidString)-\(file.lastPathComponent)")
        try (try Data(contentsOf: file) + script).write(to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let dom = try dumpDOM(of: copy)
        guard attribute("data-courier-done", in: dom) == "yes",
            let images = attribute("data-courier-images", in: dom),
            let backgrounds = attribute("data-courier-backgrounds", in: dom)
        else {
            throw Failed(
                description: "headless Chromium: the page's load event never reported within the virtual time "
                    + "budget; the DOM begins:\n\(dom.prefix(2000))")
        }
        return LoadReport(images: booleans(images), backgroundImages: booleans(backgrounds))
    }

    /// The DOM of the page at `file` once it has loaded (and 30 seconds of virtual time have
    /// passed for its scripts and timers), as Chromium serializes it.
    /// - Throws: ``Missing``; ``Failed`` when Chromium exits with an error; `Tool.TimedOut`.
    static func dumpDOM(of file: URL) throws -> String {
        let chromium = try locate()
        let profile = try InteropServers.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: profile) }
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--user-data-dir=\(profile.path)",
            // Every request through a proxy nobody runs, loopback included ("<-loopback>" takes
            // away the implicit bypass), and no host name resolves: the proxy's neither.
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=30000", "--dump-dom", file.absoluteString,
        ]
        let run: Tool.Run
        if let unshare = networkNamespaceLauncher {
            run = try Tool.run(unshare, ["-n", chromium.path] + arguments, timeout: 60)
        } else {
            run = try Tool.run(chromium, arguments, timeout: 60)
        }
        guard run.exited, run.status == 0 else {
            throw Failed(description: "headless Chromium exited with status \(run.status) on \(file.path)")
        }
        return run.text
    }

    /// `unshare`, when it can make a network namespace here (root, or a system allowing it).
    private static let networkNamespaceLauncher: URL? = {
        guard let unshare = try? ExternalTool.locate("unshare"),
            let run = try? Tool.run(unshare, ["-n", "true"], timeout: 10), run.exited, run.status == 0
        else { return nil }
        return unshare
    }()

    /// Appended to the page: after the load event, records the images' state and loads every
    /// background image's URL, then marks the document done. Chromium dumps the DOM when the
    /// virtual time budget ends, and waits for nothing else.
    private static let reportScript = #"""

        <script>
        window.addEventListener("load", () => {
          const root = document.documentElement;
          const images = Promise.all([...document.images].map(i => i.decode().then(() => true, () => false)));
          const urls = [];
          for (const element of document.querySelectorAll("*")) {
            const value = getComputedStyle(element).backgroundImage;
            for (const match of value.matchAll(/url\("((?:[^"\\]|\\.)*)"\)/g)) {
              urls.push(match[1].replace(/\\(.)/g, "$1"));
            }
          }
          const backgrounds = Promise.all(urls.map(url => new Promise(resolve => {
            const image = new Image();
            image.onload = () => resolve(image.naturalWidth > 0);
            image.onerror = () => resolve(false);
            image.src = url;
          })));
          Promise.all([images, backgrounds]).then(([decoded, loaded]) => {
            root.dataset.courierImages = decoded.join(",");
            root.dataset.courierBackgrounds = loaded.join(",");
            root.dataset.courierDone = "yes";
          });
        });
        </script>

        """#

    /// The value of the first `name="…"` in `dom` (the attributes this script sets hold no quotes).
    private static func attribute(_ name: String, in dom: String) -> String? {
        guard let start = dom.range(of: "\(name)=\"") else { return nil }
        guard let end = dom[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(dom[start.upperBound..<end])
    }

    private static func booleans(_ list: String) -> [Bool] {
        list.isEmpty ? [] : list.split(separator: ",").map { $0 == "true" }
    }
}
