import Foundation

/// The operations, each on the store under the server's lock: enough of S3 to exercise a client's
/// requests (moto's server is there for the rest).
extension S3Store {
    /// Does what `call` asks, with `body` its request body.
    mutating func perform(_ call: S3Call, headers: [HeaderField], body: Data) throws(S3ErrorDocument) -> S3Answer {
        guard let operation = call.operation else {
            throw S3ErrorDocument(
                status: 501, code: "NotImplemented",
                message: "A header or query you provided implies functionality that is not implemented.")
        }
        if operation == .listBuckets { return listBuckets() }
        guard let name = call.bucket else { throw S3ErrorDocument.noSuchBucket("") }
        if operation == .createBucket { return try createBucket(name, body: body) }
        guard var bucket = buckets[name] else { throw S3ErrorDocument.noSuchBucket(name) }
        if operation == .deleteBucket {
            guard bucket.objects.isEmpty else {
                throw S3ErrorDocument(
                    status: 409, code: "BucketNotEmpty", message: "The bucket you tried to delete is not empty",
                    details: [("BucketName", name)])
            }
            buckets[name] = nil
            return S3Answer(status: 204)
        }
        defer { buckets[name] = bucket }
        let key = call.key ?? ""
        func header(_ name: String) -> String? { headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value }
        switch operation {
        case .listBuckets, .createBucket, .deleteBucket:
            preconditionFailure("answered above")
        case .headBucket:
            return S3Answer(headers: [HeaderField(name: "x-amz-bucket-region", value: bucket.region)])
        case .listObjects:
            return try S3Listing(call).answer(bucket: name, objects: bucket.objects)
        case .putObject:
            let object = stored(body, headers: headers, eTag: Self.eTag(of: body))
            bucket.objects[key] = object
            return S3Answer(headers: [HeaderField(name: "ETag", value: object.eTag)])
        case .copyObject:
            return try copyObject(into: &bucket, key: key, headers: headers, inPlace: name)
        case .getObject, .headObject:
            guard let object = bucket.objects[key] else { throw S3ErrorDocument.noSuchKey(key) }
            return try S3Listing.objectAnswer(object, range: header("Range"))
        case .deleteObject:
            bucket.objects[key] = nil
            return S3Answer(status: 204)
        case .createMultipartUpload:
            let uploadID = "courier-upload-\(nextID())"
            let object = stored(Data(), headers: headers, eTag: "")
            bucket.uploads[uploadID] = Upload(key: key, contentType: object.contentType, metadata: object.metadata)
            return .xml(
                "<InitiateMultipartUploadResult>" + S3XML.element("Bucket", name) + S3XML.element("Key", key)
                    + S3XML.element("UploadId", uploadID) + "</InitiateMultipartUploadResult>")
        case .uploadPart:
            let uploadID = call.parameter("uploadId") ?? ""
            guard bucket.uploads[uploadID]?.key == key else { throw S3ErrorDocument.noSuchUpload(uploadID) }
            guard let part = call.partNumber, (1...10_000).contains(part) else {
                throw S3ErrorDocument.invalidArgument("Part number must be an integer between 1 and 10000, inclusive")
            }
            let eTag = Self.eTag(of: body)
            bucket.uploads[uploadID]?.parts[part] = (body, eTag)
            return S3Answer(headers: [HeaderField(name: "ETag", value: eTag)])
        case .completeMultipartUpload:
            let uploadID = call.parameter("uploadId") ?? ""
            guard let upload = bucket.uploads[uploadID], upload.key == key else {
                throw S3ErrorDocument.noSuchUpload(uploadID)
            }
            bucket.objects[key] = try complete(upload, listing: String(decoding: body, as: UTF8.self))
            bucket.uploads[uploadID] = nil
            return .xml(
                "<CompleteMultipartUploadResult>" + S3XML.element("Bucket", name) + S3XML.element("Key", key)
                    + S3XML.element("ETag", bucket.objects[key]?.eTag ?? "") + "</CompleteMultipartUploadResult>")
        case .abortMultipartUpload:
            let uploadID = call.parameter("uploadId") ?? ""
            guard bucket.uploads.removeValue(forKey: uploadID) != nil else {
                throw S3ErrorDocument.noSuchUpload(uploadID)
            }
            return S3Answer(status: 204)
        }
    }

    /// The object `headers` describe (Content-Type, `x-amz-meta-*`), stored now.
    func stored(_ body: Data, headers: [HeaderField], eTag: String) -> S3StoredObject {
        var metadata: [String: String] = [:]
        for field in headers where field.name.lowercased().hasPrefix("x-amz-meta-") {
            metadata[String(field.name.lowercased().dropFirst("x-amz-meta-".count))] = field.value
        }
        let contentType = headers.first { $0.name.equalsIgnoringASCIICase("Content-Type") }?.value
        return S3StoredObject(
            body: body, contentType: contentType, metadata: metadata, eTag: eTag,
            lastModified: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
    }

    /// A quoted MD5 in hex, S3's ETag of a single-part object.
    static func eTag(of body: Data) -> String {
        var md5 = MD5()
        body.withUnsafeBytes { md5.update($0) }
        return "\"" + md5.finalizeHex() + "\""
    }

    private func listBuckets() -> S3Answer {
        let entries = buckets.sorted { $0.key < $1.key }.map { name, bucket in
            "<Bucket>" + S3XML.element("Name", name)
                + S3XML.element("CreationDate", S3Time.xmlDate(bucket.creationDate))
                + "</Bucket>"
        }
        return .xml(
            "<ListAllMyBucketsResult><Owner><ID>courier</ID><DisplayName>courier</DisplayName></Owner><Buckets>"
                + entries.joined() + "</Buckets></ListAllMyBucketsResult>")
    }

    private mutating func createBucket(_ name: String, body: Data) throws(S3ErrorDocument) -> S3Answer {
        guard buckets[name] == nil else {
            throw S3ErrorDocument(
                status: 409, code: "BucketAlreadyOwnedByYou",
                message: "Your previous request to create the named bucket succeeded and you already own it.",
                details: [("BucketName", name)])
        }
        let region = S3XML.values(of: "LocationConstraint", in: String(decoding: body, as: UTF8.self)).first ?? ""
        buckets[name] = Bucket(
            region: region.isEmpty ? "us-east-1" : region, wrongRegionStyle: .authorizationHeaderMalformed,
            creationDate: now)
        return S3Answer(headers: [HeaderField(name: "Location", value: "/" + name)])
    }

    private mutating func copyObject(
        into bucket: inout Bucket, key: String, headers: [HeaderField], inPlace bucketName: String
    ) throws(S3ErrorDocument) -> S3Answer {
        let source = headers.first { $0.name.equalsIgnoringASCIICase("x-amz-copy-source") }?.value ?? ""
        let path = S3Call.decode(Substring(source.split(separator: "?").first ?? "")).drop { $0 == "/" }
        guard let slash = path.firstIndex(of: "/") else {
            throw S3ErrorDocument.invalidArgument(
                "Copy Source must mention the source bucket and key: sourcebucket/sourcekey")
        }
        let (sourceBucket, sourceKey) = (String(path[..<slash]), String(path[path.index(after: slash)...]))
        let from = sourceBucket == bucketName ? bucket : buckets[sourceBucket]
        guard let from else { throw S3ErrorDocument.noSuchBucket(sourceBucket) }
        guard let original = from.objects[sourceKey] else { throw S3ErrorDocument.noSuchKey(sourceKey) }
        let replaces = headers.first { $0.name.equalsIgnoringASCIICase("x-amz-metadata-directive") }?.value == "REPLACE"
        let described = stored(original.body, headers: headers, eTag: original.eTag)
        let copy = S3StoredObject(
            body: original.body, contentType: replaces ? described.contentType : original.contentType,
            metadata: replaces ? described.metadata : original.metadata, eTag: original.eTag,
            lastModified: described.lastModified)
        bucket.objects[key] = copy
        return .xml(
            "<CopyObjectResult>" + S3XML.element("LastModified", S3Time.xmlDate(copy.lastModified))
                + S3XML.element("ETag", copy.eTag) + "</CopyObjectResult>")
    }

    /// The object a CompleteMultipartUpload makes of `upload`'s parts, as `listing` names them.
    private func complete(_ upload: Upload, listing: String) throws(S3ErrorDocument) -> S3StoredObject {
        let numbers = S3XML.values(of: "PartNumber", in: listing).map { RouteTarget.number($0) ?? 0 }
        let eTags = S3XML.values(of: "ETag", in: listing)
        guard !numbers.isEmpty, numbers.count == eTags.count else {
            throw S3ErrorDocument(
                status: 400, code: "MalformedXML",
                message: "The XML you provided was not well-formed or did not validate against our published schema")
        }
        guard zip(numbers, numbers.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw S3ErrorDocument(
                status: 400, code: "InvalidPartOrder",
                message: "The list of parts was not in ascending order. Parts must be ordered by part number.")
        }
        var body = Data()
        var digests = MD5()
        for (index, (number, eTag)) in zip(numbers, eTags).enumerated() {
            let quoted = eTag.hasPrefix("\"") ? eTag : "\"" + eTag + "\""
            guard let part = upload.parts[number], part.eTag == quoted else {
                throw S3ErrorDocument(
                    status: 400, code: "InvalidPart",
                    message: "One or more of the specified parts could not be found. The part may not have been "
                        + "uploaded, or the specified entity tag may not match the part's entity tag.",
                    details: [("PartNumber", String(number)), ("ETag", eTag)])
            }
            // S3's minimum part size, which a client's part splitting must respect.
            if index < numbers.count - 1, part.body.count < 5 * 1024 * 1024 {
                throw S3ErrorDocument(
                    status: 400, code: "EntityTooSmall",
                    message: "Your proposed upload is smaller than the minimum allowed size",
                    details: [("ProposedSize", String(part.body.count)), ("MinSizeAllowed", "5242880")])
            }
            body.append(part.body)
            Self.hexBytes(quoted.dropFirst().dropLast()).withUnsafeBytes { digests.update($0) }
        }
        return S3StoredObject(
            body: body, contentType: upload.contentType, metadata: upload.metadata,
            eTag: "\"\(digests.finalizeHex())-\(numbers.count)\"",
            lastModified: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
    }

    private static func hexBytes(_ hex: Substring) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
    }
}
