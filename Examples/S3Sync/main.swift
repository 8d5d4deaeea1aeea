// Uploads a folder to an S3 bucket through a NetworkQueue with one progress total, lists the
// bucket a page at a time, downloads a file back, and presigns a URL that a plain HTTPRequest,
// with no credentials, can fetch.
//
// Runs offline against the S3 service in Courier's test server on 127.0.0.1. To run it against
// MinIO, Ceph or R2, set AWS_ENDPOINT_URL (`http://127.0.0.1:9000`); against AWS, leave that out
// and set S3SYNC_BUCKET to a bucket name of yours. Either way set AWS_REGION, AWS_ACCESS_KEY_ID
// and AWS_SECRET_ACCESS_KEY. The bucket is created when it does not exist, and left in place.
import Courier
import CourierTestServer
import Foundation

/// An environment variable's value; nil when it is unset or empty.
func setting(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}
let bucket = setting("S3SYNC_BUCKET") ?? "s3sync-example"

// Where the requests go. Every S3 request starts from the class's defaults, so these few lines
// are all it takes to point the program at another service.
var localServer: TestServer?
if let endpoint = setting("AWS_ENDPOINT_URL").flatMap(URL.init(string:)) {
    S3Request.defaultEndpoint = endpoint  // credentials and region: AWS_* from the environment
} else if setting("S3SYNC_BUCKET") == nil {
    let server = try TestServer()
    server.addS3Credentials(accessKey: "AKIDS3SYNC", secretAccessKey: "s3sync-secret")
    S3Request.defaultEndpoint = server.s3Endpoint
    S3Request.sharedAccessKey = "AKIDS3SYNC"
    S3Request.sharedSecretAccessKey = "s3sync-secret"
    localServer = server
}
defer { localServer?.stop() }

/// Prints a line and ends the program when a request failed, with S3's code when it has one.
func check(_ request: S3Request, _ what: String) {
    guard let error = request.error else { return }
    print("\(what) failed: \(request.s3Error?.description ?? error.message)")
    exit(1)
}

// A folder to upload: a few files of different sizes, one in a subfolder.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-s3sync-\(getpid())")
defer { try? FileManager.default.removeItem(at: folder) }
let files: [(path: String, bytes: Int)] = [
    ("index.html", 1_200), ("notes/todo.txt", 300), ("notes/ideas.txt", 4_000), ("photos/cat.jpg", 1_500_000),
    ("photos/owl.jpg", 700_000),
]
for (path, size) in files {
    let url = folder.appendingPathComponent(path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ path.count) }).write(to: url)
}

// The bucket, unless it is there already.
let probe = S3BucketRequest(bucket: bucket)
probe.maxResultCount = 1
probe.startSynchronous()
if probe.s3Error?.code == "NoSuchBucket" {
    let create = S3BucketRequest.create(bucket: bucket)
    create.startSynchronous()
    check(create, "creating \(bucket)")
    print("created bucket \(bucket)")
} else {
    check(probe, "looking at \(bucket)")
}

/// The queue's upload fraction, as it rises.
final class UploadProgress: ProgressDelegate, @unchecked Sendable {
    private var shownQuarter = 0
    func setProgress(_ progress: Double) {
        while shownQuarter < Int(progress * 4) {
            shownQuarter += 1
            print("uploaded \(shownQuarter * 25)%")
        }
    }
}

// Every file through one queue: a few at a time over the same connections, one progress total.
let queue = NetworkQueue()
let progress = UploadProgress()
queue.uploadProgressDelegate = progress
var uploads: [S3ObjectRequest] = []
for (path, _) in files {
    let upload = S3ObjectRequest.put(
        file: folder.appendingPathComponent(path).path, bucket: bucket, key: "site/" + path)
    upload.mimeType = path.hasSuffix(".html") ? "text/html" : path.hasSuffix(".txt") ? "text/plain" : "image/jpeg"
    upload.metadata = ["synced-by": "S3Sync"]
    uploads.append(upload)
    queue.addOperation(upload)
}
await queue.allFinished()
for upload in uploads { check(upload, "uploading \(upload.key)") }
print("uploaded \(files.count) files, \(files.reduce(0) { $0 + $1.bytes }) bytes")

// The listing, two keys to a page, and the folders under site/.
var page: S3BucketRequest? = S3BucketRequest(bucket: bucket)
page?.prefix = "site/"
page?.maxResultCount = 2
var pages = 0
while let request = page {
    request.startSynchronous()
    check(request, "listing \(bucket)")
    pages += 1
    for object in request.objects { print("listed \(object.key) \(object.size)") }
    page = request.nextPageRequest()
}
let folders = S3BucketRequest(bucket: bucket)
folders.prefix = "site/"
folders.delimiter = "/"
folders.startSynchronous()
check(folders, "listing the folders of \(bucket)")
print("\(pages) pages; folders: \(folders.commonPrefixes.joined(separator: " "))")

// One file back, to disk, and compared with the original.
let destination = folder.appendingPathComponent("cat-downloaded.jpg").path
let download = S3ObjectRequest(bucket: bucket, key: "site/photos/cat.jpg")
download.downloadDestinationPath = destination
download.allowResumeForFileDownloads = true  // a second run after a failure asks for the rest only
download.startSynchronous()
check(download, "downloading")
let same = FileManager.default.contentsEqual(
    atPath: destination, andPath: folder.appendingPathComponent("photos/cat.jpg").path)
print("downloaded site/photos/cat.jpg: \(same ? "identical" : "DIFFERENT"), metadata \(download.metadata)")

// A URL anyone can fetch for the next hour, without credentials.
let presigned = try S3ObjectRequest(bucket: bucket, key: "site/notes/todo.txt").presignedURL(expiresIn: 3600)
let fetch = HTTPRequest(url: presigned)
fetch.startSynchronous()
print("presigned URL: \(fetch.responseStatusCode), \(fetch.responseData()?.count ?? 0) bytes, no credentials sent")
exit(same && fetch.responseStatusCode == 200 ? 0 : 1)
