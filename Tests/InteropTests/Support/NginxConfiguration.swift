import Foundation

/// The nginx configuration the interop tests run: everything inside one temporary directory, so
/// it runs as root or not without touching /etc, /var or port 80.
struct NginxConfiguration {
    /// The plain HTTP listener's port on 127.0.0.1.
    var httpPort: Int
    /// The TLS listener's port on 127.0.0.1 (HTTP/2 and HTTP/1.1 by ALPN).
    var httpsPort: Int
    /// The TLS listener that requires a client certificate signed by the client CA.
    var clientCertificatePort: Int
    /// The TLS listener for which a client certificate is optional.
    var optionalClientCertificatePort: Int
    /// The directory nginx works in (its `-p` prefix): logs, pid and temporary files go here.
    var directory: URL
    /// What `/files/` and `/gzip/` serve.
    var docroot: URL
    /// Where `PUT /upload/…` writes.
    var uploads: URL
    /// The access log, one JSON object per request (``AccessLogEntry``).
    var accessLog: URL
    /// The server certificate and key for the TLS listener.
    var certificates: TestCertificates
    /// The client CA and identities of the client-certificate listeners.
    var clientCertificates: ClientTestCertificates

    /// Status codes `/status/NNN` answers with: no body for 2xx, nginx's own short HTML page for
    /// the others.
    static let statusCodes = [200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 410, 429, 500, 502, 503, 504]
    /// Status codes `/redirect/NNN?to=URL` answers with, `Location` set to URL.
    static let redirectCodes = [301, 302, 303, 307, 308]

    /// The configuration file's text.
    var text: String {
        let logFields = AccessLogEntry.logFormatFields.map { "\"\($0.key)\":\"\($0.variable)\"" }
        let statuses = Self.statusCodes.map { "location = /status/\($0) { return \($0); }" }
        // `to` must be the only query parameter: everything after "to=" is the target, used as
        // sent (not percent-decoded), so a target may carry its own query string.
        let redirects = Self.redirectCodes.map {
            "location = /redirect/\($0) { if ($args ~ \"^to=(.+)$\") { return \($0) $1; } return 400; }"
        }
        return """
            # Written by the interop tests (Tests/InteropTests/Support/NginxConfiguration.swift).
            daemon off;
            # One process, running as whoever started it: it dies with one signal, its pid is the
            # one the tests hold, and it never switches to a user who could not read the temp dir.
            master_process off;
            pid \(path("nginx.pid"));
            error_log \(path("error.log")) warn;
            # Room for the load test's 1,000 connections at once, on top of the five listeners and
            # the idle connections earlier tests left in the engine's cache: each takes a slot, and
            # nginx answers a connection past the last slot by closing it ("Empty reply").
            events { worker_connections 4096; }
            http {
                default_type application/octet-stream;
                types {
                    text/plain txt;
                    text/html html;
                    application/json json;
                }
                log_format interop escape=json '{\(logFields.joined(separator: ","))}';
                # No buffer: each request's line is written when the request ends.
                access_log \(accessLog.path) interop;
                client_body_temp_path \(path("body"));
                proxy_temp_path \(path("proxy"));
                fastcgi_temp_path \(path("fastcgi"));
                uwsgi_temp_path \(path("uwsgi"));
                scgi_temp_path \(path("scgi"));
                keepalive_requests 1000000;
                keepalive_timeout 300s;
                sendfile on;
                tcp_nodelay on;
                server {
                    listen 127.0.0.1:\(httpPort);
                    listen 127.0.0.1:\(httpsPort) ssl http2;
                    server_name localhost 127.0.0.1;
                    ssl_certificate \(certificates.serverCertificate.path);
                    ssl_certificate_key \(certificates.serverKey.path);
                    # Range requests work here.
                    location /files/ {
                        alias \(docroot.path)/;
                        gzip off;
                    }
                    # Gzipped when the client sends Accept-Encoding: gzip; nginx then ignores Range.
                    location /gzip/ {
                        alias \(docroot.path)/;
                        gzip on;
                        gzip_types *;
                        gzip_min_length 0;
                        gzip_proxied any;
                        gzip_vary on;
                    }
                    # The made files again, behind Basic authentication (user interop, password
                    # nginx-secret; see htpasswdText).
                    location /protected/ {
                        alias \(docroot.path)/;
                        auth_basic "Courier nginx";
                        auth_basic_user_file \(path("htpasswd"));
                    }
                    # WebDAV PUT and DELETE; GET reads an upload back.
                    location /upload/ {
                        alias \(uploads.path)/;
                        dav_methods PUT DELETE;
                        dav_access user:rw group:r all:r;
                        create_full_put_path on;
                        client_max_body_size 0;
                    }
                    \(redirects.joined(separator: "\n        "))
                    \(statuses.joined(separator: "\n        "))
                }
                \(clientCertificateServers)
            }

            """
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The user file of `/protected/`, written beside the configuration: nginx reads `{PLAIN}`.
    static let htpasswdText = "interop:{PLAIN}nginx-secret\n"
}
