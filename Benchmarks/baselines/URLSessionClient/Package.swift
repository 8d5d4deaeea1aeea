// swift-tools-version:6.0
import PackageDescription

// The URLSession baseline for Courier's benchmarks (Benchmarks/README.md): the same interface and
// output as courier-bench, through FoundationNetworking's URLSession (which on Linux also runs on
// libcurl).
let package = Package(
    name: "URLSessionClient",
    targets: [
        .executableTarget(name: "urlsession-bench")
    ]
)
