import CCurl
import Foundation

/// libcurl's C callbacks for a `Transfer`. Each recovers the transfer from its user-data pointer
/// (the transfer's `CallbackContext`, which the engine retains while the handle is in the multi
/// handle), records what happened and returns at once. None calls back into libcurl, runs user
/// code or can trap: a context without a transfer stops the transfer instead.
enum TransferCallbacks {
    /// `CURLOPT_HEADERFUNCTION`: one header line at a time.
    static let header: ccurl_data_cb = { buffer, size, count, userData in
        let length = size * count
        guard let buffer, let userData else { return length }
        guard let transfer = CallbackContext.transfer(from: userData) else { return 0 }
        return header(buffer, length, transfer)
    }

    private static func header(_ buffer: UnsafeMutablePointer<CChar>, _ length: Int, _ transfer: Transfer) -> Int {
        // Cancelled: libcurl stops the transfer here (CURLE_WRITE_ERROR) rather than at the
        // engine's next turn, and nothing more of it is handed over.
        if transfer.isAbandoned { return 0 }
        transfer.noteActivity()
        let line = UnsafeRawBufferPointer(start: buffer, count: length)
        let completed = transfer.headParser.consume(line)
        if let malformation = transfer.headParser.malformation {
            // An ambiguous body length (CWE-444): stop at this line, before any body is read or
            // the head is handed over. Returning less than the length makes libcurl stop with
            // CURLE_WRITE_ERROR (closing the connection); the outcome prefers this error.
            transfer.engineFailure = HTTPRequestError(
                type: .connectionFailure, message: "The server sent a malformed response: \(malformation)",
                url: transfer.url)
            return 0
        }
        if let head = completed {
            if transfer.isTunnelHead(head) {
                // The proxy's "200 Connection established" for this transfer's CONNECT: not the
                // response, which follows through the tunnel. A challenge held before it was
                // answered by libcurl.
                transfer.heldChallenge = nil
                return length
            }
            transfer.head = head
            if transfer.presentsCredentials, head.statusCode == 401 || head.statusCode == 407 {
                // libcurl may answer this challenge itself and send the request again in this
                // transfer (Digest, NTLM), ignoring this body: the head waits until a body or
                // the transfer's end shows it is the response.
                transfer.heldChallenge = head
                return length
            }
            transfer.heldChallenge = nil
            // Returning less than the length makes libcurl stop with CURLE_WRITE_ERROR.
            guard transfer.deliver(head) else { return 0 }
        }
        return length
    }

    /// `CURLOPT_WRITEFUNCTION`: a piece of the response body, inflated if asked, to memory, a
    /// file or the request.
    static let write: ccurl_data_cb = { buffer, size, count, userData in
        let length = size * count
        guard let buffer, let userData else { return length }
        guard let transfer = CallbackContext.transfer(from: userData) else { return 0 }
        return write(buffer, length, transfer)
    }

    private static func write(_ buffer: UnsafeMutablePointer<CChar>, _ length: Int, _ transfer: Transfer) -> Int {
        // Cancelled: not one more byte to the file, memory or data delegate (an atomic load, a
        // plain move on x86). Returning less than the length makes libcurl stop the transfer.
        if transfer.isAbandoned { return 0 }
        transfer.noteActivity()
        // A body after a held challenge: libcurl is not answering it, so it is the response.
        if transfer.heldChallenge != nil, !transfer.deliverHeldChallenge() { return 0 }
        if transfer.bodyPlan == .stream, !(transfer.sink.map { $0.transferHasRoom(transfer) } ?? true) {
            // libcurl keeps the chunk and delivers it again after curl_easy_pause(CONT).
            transfer.pauses.insert(.consumer)
            return Int(CURL_WRITEFUNC_PAUSE)
        }
        guard Engine.shared.bandwidth.take(length, for: transfer) else {
            transfer.pauses.insert(.bandwidth)
            return Int(CURL_WRITEFUNC_PAUSE)
        }
        let chunk = UnsafeRawBufferPointer(start: buffer, count: length)
        do throws(HTTPRequestError) {
            if let inflater = transfer.inflater {
                do {
                    try inflater.inflate(chunk) { inflated in try transfer.store(inflated) }
                } catch let error as HTTPRequestError {
                    throw error
                } catch {
                    throw HTTPRequestError(
                        type: .compression, message: "\(error)", url: transfer.url, underlyingError: error)
                }
            } else {
                try transfer.store(chunk)
            }
        } catch {
            // Returning less than the length makes libcurl stop with CURLE_WRITE_ERROR.
            transfer.engineFailure = error
            return 0
        }
        transfer.countReceived(length)
        transfer.reportProgressIfDue()
        return length
    }

    /// `CURLOPT_READFUNCTION`: fill libcurl's buffer with the next part of the request body.
    static let read: ccurl_data_cb = { buffer, size, count, userData in
        guard let buffer, let userData else { return 0 }
        guard let transfer = CallbackContext.transfer(from: userData), !transfer.isAbandoned else {
            return Int(CURL_READFUNC_ABORT)
        }
        transfer.noteActivity()
        guard let reader = transfer.bodyReader else { return 0 }
        let budget = Engine.shared.bandwidth
        if budget.isLimited, !budget.take(0, for: transfer) {
            transfer.pauses.insert(.bandwidth)
            return Int(CURL_READFUNC_PAUSE)
        }
        switch reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) {
        case .bytes(let length):
            _ = budget.take(length, for: transfer)
            transfer.setUploadOffset(transfer.uploadOffset &+ Int64(length))
            transfer.reportProgressIfDue()
            return length
        case .pause:
            transfer.pauses.insert(.producer)
            return Int(CURL_READFUNC_PAUSE)
        case .fail(let error):
            transfer.engineFailure = error
            return Int(CURL_READFUNC_ABORT)
        }
    }

    /// `CURLOPT_SEEKFUNCTION`: rewind the body when libcurl must send it again.
    static let seek: ccurl_seek_cb = { userData, offset, origin in
        guard let userData else { return Int32(CURL_SEEKFUNC_FAIL) }
        guard let transfer = CallbackContext.transfer(from: userData) else { return Int32(CURL_SEEKFUNC_FAIL) }
        guard origin == SEEK_SET, offset == 0, let reader = transfer.bodyReader, reader.rewind() else {
            return Int32(CURL_SEEKFUNC_CANTSEEK)
        }
        transfer.setUploadOffset(0)
        return Int32(CURL_SEEKFUNC_OK)
    }
}
