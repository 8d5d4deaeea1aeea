import CCurl
import Synchronization

/// A thin typed wrapper over one libcurl easy handle.
///
/// Confined to the engine thread: it is created, configured, run and reset there only, which is
/// why it is explicitly not `Sendable`. Its fields keep Swift's dynamic exclusivity checks:
/// turning them off saved nothing measurable of a 1 KiB GET (callgrind, courier-bench). Every
/// setter throws a `CurlError` carrying `CURLOPT_ERRORBUFFER`'s text rather than trapping.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    /// Receives libcurl's own description of a failure (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// What the options set on the handle amount to; lets a pooled handle skip `curl_easy_reset`
    /// and setting the same options again.
    var options: OptionState = .fresh
    /// The header list libcurl holds (`CURLOPT_HTTPHEADER`) and the lines it was made from.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var headerLines: [String]?
    /// Whether `CURLOPT_COOKIEFILE` has been set on this handle. libcurl 7.88 keeps the cookie
    /// engine it turns on, and the file list the option appends to, through `curl_easy_reset`:
    /// setting it at every reset grew the list by one entry a transfer (about 16 bytes of a
    /// request with credentials, ~70 B with the rest, for as long as the handle lived; found by
    /// the soak of issue 21 with heaptrack). Set once per handle, it serves every transfer after.
    var hasCookieEngine = false

    /// The options a handle holds between transfers.
    enum OptionState: Equatable {
        /// As `curl_easy_init` or `curl_easy_reset` left it.
        case fresh
        /// Exactly the options of this profile, set by a plain GET (no method or body options)
        /// that ended well: the next transfer with the same profile sets only its own.
        case kept(HandleProfile)
        /// Anything else (a body, another verb, a transfer that ended early): reset before use.
        case mixed
    }

    /// Easy handles alive in the process (made by `curl_easy_init`, not yet cleaned up), whoever
    /// holds them: a transfer, the engine's pool or the cookie jar. Any thread; the load tests read
    /// it through `Engine.handleCensus` to prove that no handle leaks.
    static let liveCount = Atomic<Int>(0)

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        Self.liveCount.add(1, ordering: .relaxed)
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        // A handle that refuses its error buffer is no handle to run transfers on (deinit frees it).
        guard (try? setFixedOptions()) != nil else { return nil }
    }

    deinit {
        Self.liveCount.subtract(1, ordering: .relaxed)
        curl_easy_cleanup(raw)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Returns the handle to its freshly-initialised state, keeping its connections and caches
    /// (`curl_easy_reset`), so that it can serve the next transfer.
    func reset() throws {
        curl_easy_reset(raw)
        try setFixedOptions()
        options = .fresh
        // curl_easy_reset forgot CURLOPT_HTTPHEADER: the list is no longer in use.
        curl_slist_free_all(headerList)
        headerList = nil
        headerLines = nil
    }

    /// `CURLOPT_HTTPHEADER`, as a list the handle owns. The lines of one request are most often
    /// those of the one before (the same User-Agent and Accept-Encoding): then the list libcurl
    /// already holds is kept, instead of allocating and freeing two nodes and two strings a line.
    func setHeaderLines(_ lines: [String]) throws {
        if lines == headerLines { return }
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = line.withCString({ curl_slist_append(list, $0) }) else {
                curl_slist_free_all(list)
                throw CurlError(CURLE_OUT_OF_MEMORY)
            }
            list = appended
        }
        do {
            try set(CURLOPT_HTTPHEADER, list: list)
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        curl_slist_free_all(headerList)
        headerList = list
        headerLines = lines
    }

    /// Clears the text of the last failure, for a handle used again without a reset.
    func clearErrorText() {
        errorBuffer[0] = 0
    }

    /// The error buffer, set once (and again after a reset), so a transfer need not.
    private func setFixedOptions() throws {
        errorBuffer[0] = 0
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    /// The pointer the response callbacks receive and `CURLINFO_PRIVATE` gives back: the
    /// transfer's `CallbackContext`, set for each transfer (the engine retains it meanwhile).
    func setContext(_ context: UnsafeMutableRawPointer) throws {
        try set(CURLOPT_HEADERDATA, pointer: context)
        try set(CURLOPT_WRITEDATA, pointer: context)
        try set(CURLOPT_PRIVATE, pointer: context)
    }

    /// The same pointer for the request body's callbacks, set only for a transfer with a body.
    func setBodyContext(_ context: UnsafeMutableRawPointer) throws {
        try set(CURLOPT_READDATA, pointer: context)
        try set(CURLOPT_SEEKDATA, pointer: context)
    }

    /// The text libcurl wrote for the last failure, or "" when it wrote none.
    var errorText: String { String(cString: errorBuffer) }

    private func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code == CURLE_OK else {
            let text = errorText.isEmpty ? String(cString: curl_easy_strerror(code)) : errorText
            throw CurlError(code, text: "\(text) (setting option \(option.rawValue))")
        }
    }

    func set(_ option: CURLoption, _ value: Int) throws {
        try check(ccurl_easy_setopt_long(raw, option, value), option)
    }

    func set(_ option: CURLoption, _ value: Bool) throws {
        try check(ccurl_easy_setopt_long(raw, option, value ? 1 : 0), option)
    }

    func set(_ option: CURLoption, int64 value: Int64) throws {
        try check(ccurl_easy_setopt_off_t(raw, option, curl_off_t(value)), option)
    }

    /// A string option: libcurl copies it (every string option since 7.17), so the Swift string
    /// needs to live only for the call.
    func set(_ option: CURLoption, _ value: String) throws {
        // withCString lends a native string's own bytes; passing the String directly would copy
        // it into a new array first.
        try check(value.withCString { ccurl_easy_setopt_string(raw, option, $0) }, option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws {
        try check(ccurl_easy_setopt_ptr(raw, option, value), option)
    }

    /// A header list: libcurl keeps the pointer, so the list must outlive the transfer.
    func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?) throws {
        try check(ccurl_easy_setopt_slist(raw, option, list), option)
    }

    func set(_ option: CURLoption, callback: ccurl_data_cb) throws {
        try check(ccurl_easy_setopt_data_cb(raw, option, callback), option)
    }

    func setSeekCallback(_ callback: ccurl_seek_cb) throws {
        try check(ccurl_easy_setopt_seek_cb(raw, callback), CURLOPT_SEEKFUNCTION)
    }

    func setProgressCallback(_ callback: ccurl_xferinfo_cb) throws {
        try check(ccurl_easy_setopt_xferinfo_cb(raw, callback), CURLOPT_XFERINFOFUNCTION)
    }

    // MARK: - Information (CURLINFO_*)

    func info(long option: CURLINFO) -> Int {
        var value = 0
        return ccurl_easy_getinfo_long(raw, option, &value) == CURLE_OK ? value : 0
    }

    func info(offset option: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return ccurl_easy_getinfo_off_t(raw, option, &value) == CURLE_OK ? Int64(value) : 0
    }

    func info(string option: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard ccurl_easy_getinfo_string(raw, option, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// A `*_TIME_T` duration (microseconds) in seconds.
    func info(seconds option: CURLINFO) -> Double {
        Double(info(offset: option)) / 1_000_000
    }
}

@available(*, unavailable, message: "EasyHandle is confined to the engine thread")
extension EasyHandle: Sendable {}
