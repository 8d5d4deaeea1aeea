import Foundation

/// The nginx configuration of ``WebPageSite``: two origins, each a `server` on its own loopback
/// port with its own document root, and one access log for both (each line has its port).
///
/// What every path answers, on both origins (`F` is any first path segment: a test's folder):
/// - a file under the origin's root, with the Content-Type its extension has in nginx's
///   `mime.types` (`text/html`, `text/css`, `application/javascript`, `image/png`,
///   `image/svg+xml`, `image/webp`, `video/webm`…), and **no charset** unless the name asks for
///   one: `NAME.latin1.html` (or `.css`) is sent with `charset=iso-8859-1`, `NAME.utf8.html`
///   with `charset=utf-8`, `NAME.usascii.html` with `charset=us-ascii`; any other page's
///   encoding comes from its bytes (a BOM, `<meta charset>`), as a browser would find it;
/// - `/F/redirect-to/PATH`: 302 to the page origin's `/F/PATH` (query kept), absolute Location;
/// - `/F/not-found/…`: 404;
/// - `/F/reset/…`: no answer, the connection closed (nginx's 444): "empty reply";
/// - `/F/slow/NAME`: the file `F/slow/NAME`, sent at 1 KB/s (a transfer to cancel);
/// - `/F/no-type/NAME`: the file `F/no-type/NAME` with no Content-Type header at all;
/// - `/F/set-cookie`: 200, `Set-Cookie: webpage=F; Path=/F/` (a cookie only that folder gets);
/// - `/log-barrier`: 204, for ``WebPageSite/settledAccessLog()``.
struct WebPageSiteConfiguration {
    /// The page origin's port on 127.0.0.1.
    var pagePort: Int
    /// The other origin's port on 127.0.0.1.
    var otherPort: Int
    /// The directory nginx works in (its `-p` prefix): logs, pid and temporary files go here.
    var directory: URL
    /// What the page origin serves.
    var pageRoot: URL
    /// What the other origin serves.
    var otherRoot: URL
    /// The access log of both origins, one JSON object per request (``AccessLogEntry``).
    var accessLog: URL

    /// Debian's (and nginx's own) list of types by extension; when a build has none there, the
    /// types the fixtures use are listed in the configuration instead.
    static let systemMimeTypes = "/etc/nginx/mime.types"

    /// The configuration file's text.
    var text: String {
        let logFields = AccessLogEntry.logFormatFields.map { "\"\($0.key)\":\"\($0.variable)\"" }
        return """
            # Written by the web-page tests (Tests/InteropTests/Support/WebPageSiteConfiguration.swift).
            daemon off;
            # One process, running as whoever started it (see NginxConfiguration); one event loop
            # also orders the log: a request answered before /log-barrier is logged before it.
            master_process off;
            pid \(path("nginx.pid"));
            error_log \(path("error.log")) warn;
            events { worker_connections 4096; }
            http {
                \(types)
                default_type application/octet-stream;
                log_format webpage escape=json '{\(logFields.joined(separator: ","))}';
                access_log \(accessLog.path) webpage;
                # A missing file is a 404 the tests asked for, not an error worth a log line.
                log_not_found off;
                client_body_temp_path \(path("body"));
                proxy_temp_path \(path("proxy"));
                fastcgi_temp_path \(path("fastcgi"));
                uwsgi_temp_path \(path("uwsgi"));
                scgi_temp_path \(path("scgi"));
                keepalive_requests 1000000;
                keepalive_timeout 300s;
                sendfile on;
                tcp_nodelay on;
                server_tokens off;
                # `charset` only names the charset in Content-Type (no source_charset: nothing is
                # recoded), for these types.
                charset_types text/html text/css application/javascript text/plain;
                server {
                    listen 127.0.0.1:\(pagePort);
                    server_name page;
                    root \(pageRoot.path);
                    \(locations)
                }
                server {
                    listen 127.0.0.1:\(otherPort);
                    server_name other;
                    root \(otherRoot.path);
                    \(locations)
                }
            }

            """
    }

    /// The same locations on both origins. Regular expressions are tried in this order and the
    /// first match wins, so the folder-level ones come before the charset ones.
    private var locations: String {
        """
        location ~ ^/([^/]+)/redirect-to/(.*)$ {
                    return 302 http://127.0.0.1:\(pagePort)/$1/$2$is_args$args;
                }
                location ~ ^/[^/]+/not-found/ { return 404; }
                location ~ ^/[^/]+/reset/ { return 444; }
                location ~ ^/[^/]+/slow/ { limit_rate 1k; }
                location ~ ^/[^/]+/no-type/ {
                    types { }
                    default_type "";
                }
                location ~ ^/([^/]+)/set-cookie$ {
                    add_header Set-Cookie "webpage=$1; Path=/$1/";
                    default_type text/plain;
                    return 200 "cookie set\\n";
                }
                location = /log-barrier { return 204; }
                location ~ \\.latin1\\.(html|css)$ { charset iso-8859-1; }
                location ~ \\.utf8\\.(html|css)$ { charset utf-8; }
                location ~ \\.usascii\\.html$ { charset us-ascii; }
                location / { }
        """
    }

    private var types: String {
        if FileManager.default.fileExists(atPath: Self.systemMimeTypes) {
            return "include \(Self.systemMimeTypes);"
        }
        return """
            types {
                    text/html html;
                    text/css css;
                    application/javascript js;
                    image/png png;
                    image/svg+xml svg;
                    image/webp webp;
                    video/mp4 mp4;
                    video/webm webm;
                    audio/ogg ogg;
                    image/x-icon ico;
                    text/plain txt;
                }
            """
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
