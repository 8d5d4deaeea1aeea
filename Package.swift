// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Courier",
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierTestServer", targets: ["CourierTestServer"]),
        .executable(name: "courier", targets: ["courier"]),
        .executable(name: "courier-bench", targets: ["courier-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // The JavaScript engine that evaluates PAC files (`pacURL`).
        .systemLibrary(
            name: "CDuktape",
            pkgConfig: "duktape",
            providers: [.apt(["duktape-dev"])]
        ),
        // OpenSSL's libcrypto, already linked by libcurl: SHA-256 and HMAC for the S3 signers.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libxml2's HTML parser, for WebPageRequest's pages (tag soup as browsers read it).
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // `withAnnotatedLock`: Mutex made visible to ThreadSanitizer, for Courier and the test server.
        .target(name: "CourierThreadSanitizer"),
        .target(
            name: "Courier",
            dependencies: ["CCurl", "CZlib", "CDuktape", "CCrypto", "CLibXML2", "CourierThreadSanitizer"]),
        // CCrypto: SHA-256 and HMAC for the S3 service's own signature checks.
        .target(name: "CourierTestServer", dependencies: ["CZlib", "CCrypto", "CourierThreadSanitizer"]),
        .executableTarget(name: "courier", dependencies: ["Courier", "CourierTestServer"]),
        .executableTarget(name: "courier-bench", dependencies: ["Courier"]),
        // Examples/: programs a user would copy, built and run by the CLI tests.
        .executableTarget(
            name: "QueueWithProgress", dependencies: ["Courier", "CourierTestServer"],
            path: "Examples/QueueWithProgress"),
        .executableTarget(
            name: "LoginRequest", dependencies: ["Courier", "CourierTestServer"], path: "Examples/LoginRequest"),
        .executableTarget(
            name: "CachedFeed", dependencies: ["Courier", "CourierTestServer"], path: "Examples/CachedFeed"),
        .executableTarget(
            name: "JSONEndpoints", dependencies: ["Courier", "CourierTestServer"], path: "Examples/JSONEndpoints"),
        .executableTarget(
            name: "FormUpload", dependencies: ["Courier", "CourierTestServer"], path: "Examples/FormUpload"),
        .executableTarget(
            name: "TokenRetry", dependencies: ["Courier", "CourierTestServer"], path: "Examples/TokenRetry"),
        .executableTarget(
            name: "AsyncAwait", dependencies: ["Courier", "CourierTestServer"], path: "Examples/AsyncAwait"),
        .executableTarget(
            name: "AsyncQueue", dependencies: ["Courier", "CourierTestServer"], path: "Examples/AsyncQueue"),
        .executableTarget(
            name: "DelegateController", dependencies: ["Courier", "CourierTestServer"],
            path: "Examples/DelegateController"),
        .executableTarget(name: "S3Sync", dependencies: ["Courier", "CourierTestServer"], path: "Examples/S3Sync"),
        .executableTarget(
            name: "OfflineReader", dependencies: ["Courier", "CourierTestServer"], path: "Examples/OfflineReader"),
        // Every way of waiting for a NetworkQueue, each run by the CLI tests as a program of its own.
        .executableTarget(
            name: "courier-waiting-styles", dependencies: ["Courier", "CourierTestServer"],
            path: "Tests/WaitingStyles"),
        // Helpers shared by the test targets: child processes, quick runs, a server per test.
        .target(name: "CourierTestSupport", dependencies: ["CourierTestServer"], path: "Tests/CourierTestSupport"),
        .testTarget(
            name: "CourierTests", dependencies: ["Courier", "CourierTestServer", "CCurl", "CourierTestSupport"],
            // The S3 signer tests' second implementation, run with Python (botocore).
            exclude: ["S3/botocore_sign.py"]),
        .testTarget(
            name: "CourierTestServerTests",
            dependencies: ["CourierTestServer", "CourierTestSupport", "CourierThreadSanitizer"]),
        .testTarget(
            name: "CourierCLITests",
            dependencies: [
                "courier", "courier-bench", "QueueWithProgress", "LoginRequest", "CachedFeed", "JSONEndpoints",
                "FormUpload", "TokenRetry", "AsyncAwait", "AsyncQueue", "DelegateController", "S3Sync",
                "OfflineReader",
                "courier-waiting-styles",
                "CourierTestServer",
                "CourierTestSupport",
            ]),
        // The CLI's tests against nginx, tinyproxy and TLS live here too, beside those servers.
        .testTarget(
            name: "InteropTests",
            dependencies: ["Courier", "CourierTestServer", "CourierTestSupport", "CourierThreadSanitizer", "courier"]),
    ]
)
