/// The PAC helpers written in JavaScript, evaluated in every PAC heap before the PAC file.
///
/// The pure helpers follow the Netscape definitions as Mozilla implements them. `dnsResolve`,
/// `isResolvable` and `myIpAddress` are native (`PACNatives`); `__pacNow` gives the date the
/// time helpers read, so a test can fix it. `alert` collects its messages, which Courier's log
/// shows after the evaluation (a log handler is user code: never run under the script's lock).
enum PACPrelude {
    static let source = #"""
        var __pacAlerts = [];
        function alert(message) { __pacAlerts.push(String(message)); }
        function __pacTakeAlerts() { var taken = __pacAlerts; __pacAlerts = []; return taken.join("\n"); }
        function __pacNow() { return new Date(); }

        function isPlainHostName(host) { return String(host).indexOf(".") == -1; }

        function dnsDomainIs(host, domain) {
            host = String(host); domain = String(domain);
            return host.length >= domain.length && host.substring(host.length - domain.length) == domain;
        }

        function localHostOrDomainIs(host, hostdom) {
            host = String(host); hostdom = String(hostdom);
            return host == hostdom || hostdom.lastIndexOf(host + ".", 0) == 0;
        }

        function dnsDomainLevels(host) { return String(host).split(".").length - 1; }

        function __pacAddress(text) {
            var parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(String(text));
            if (parts == null) return null;
            var value = 0;
            for (var i = 1; i <= 4; i++) {
                var byte = parseInt(parts[i], 10);
                if (byte > 255) return null;
                value = value * 256 + byte;
            }
            return value;
        }

        function isInNet(host, pattern, mask) {
            var address = __pacAddress(host);
            if (address == null) {
                var resolved = dnsResolve(host);
                if (resolved == null) return false;
                address = __pacAddress(resolved);
            }
            var net = __pacAddress(pattern), bits = __pacAddress(mask);
            if (address == null || net == null || bits == null) return false;
            // Unsigned 32-bit arithmetic: `&` alone would go negative above 2^31.
            return ((address & bits) >>> 0) == ((net & bits) >>> 0);
        }

        function shExpMatch(text, pattern) {
            var expression = String(pattern).replace(/[.+^${}()|[\]\\\/]/g, "\\$&")
                .replace(/\*/g, ".*").replace(/\?/g, ".");
            return new RegExp("^" + expression + "$").test(String(text));
        }

        var __pacDays = { SUN: 0, MON: 1, TUE: 2, WED: 3, THU: 4, FRI: 5, SAT: 6 };
        var __pacMonths = { JAN: 0, FEB: 1, MAR: 2, APR: 3, MAY: 4, JUN: 5, JUL: 6, AUG: 7, SEP: 8, OCT: 9,
            NOV: 10, DEC: 11 };

        // The arguments without a trailing "GMT", and whether it was there.
        function __pacSplitGMT(args) {
            var list = Array.prototype.slice.call(args);
            var gmt = list.length > 0 && list[list.length - 1] == "GMT";
            if (gmt) list.pop();
            return { list: list, gmt: gmt };
        }

        function __pacFields(gmt) {
            var d = __pacNow();
            return gmt
                ? { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate(), weekday: d.getUTCDay(),
                    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() }
                : { year: d.getFullYear(), month: d.getMonth(), day: d.getDate(), weekday: d.getDay(),
                    hour: d.getHours(), minute: d.getMinutes(), second: d.getSeconds() };
        }

        // Whether `value` lies from `low` to `high`, both included; a range whose low end is past
        // its high end wraps around (FRI to MON, DEC to FEB, 22 to 6 o'clock).
        function __pacWithin(value, low, high) {
            return low <= high ? (low <= value && value <= high) : (value >= low || value <= high);
        }

        function weekdayRange() {
            var a = __pacSplitGMT(arguments);
            if (a.list.length < 1 || a.list.length > 2) return false;
            var first = __pacDays[a.list[0]], last = a.list.length == 2 ? __pacDays[a.list[1]] : first;
            if (first === undefined || last === undefined) return false;
            return __pacWithin(__pacFields(a.gmt).weekday, first, last);
        }

        function dateRange() {
            var a = __pacSplitGMT(arguments);
            var count = a.list.length;
            if (count < 1 || count > 6 || (count > 1 && count % 2 == 1)) return false;
            var now = __pacFields(a.gmt);
            // Each end is a day, a month and a year, each optional: a number up to 31 is a day,
            // a larger one a year, a name a month.
            function end(items) {
                var parsed = { day: null, month: null, year: null };
                for (var i = 0; i < items.length; i++) {
                    var item = items[i];
                    if (typeof item == "string" && __pacMonths[item] !== undefined) {
                        parsed.month = __pacMonths[item];
                    } else if (!isNaN(parseInt(item, 10))) {
                        var n = parseInt(item, 10);
                        if (n >= 1 && n <= 31) parsed.day = n; else parsed.year = n;
                    } else return null;
                }
                return parsed;
            }
            var half = count == 1 ? 1 : count / 2;
            var low = end(a.list.slice(0, half)), high = end(a.list.slice(count - half));
            if (low == null || high == null) return false;
            // Years do not wrap around.
            if (low.year != null && key(low) > key(high)) return false;
            if ((low.day == null) != (high.day == null) || (low.month == null) != (high.month == null)
                || (low.year == null) != (high.year == null)) return false;
            // The fields both ends name, compared as one number, most significant first.
            function key(p) {
                return (p.year == null ? 0 : p.year * 10000) + (p.month == null ? 0 : (p.month + 1) * 100)
                    + (p.day == null ? 0 : p.day);
            }
            var today = key({ year: low.year == null ? null : now.year, month: low.month == null ? null : now.month,
                day: low.day == null ? null : now.day });
            return __pacWithin(today, key(low), key(high));
        }

        function timeRange() {
            var a = __pacSplitGMT(arguments);
            var count = a.list.length;
            if (count != 1 && count != 2 && count != 4 && count != 6) return false;
            for (var i = 0; i < count; i++) { if (isNaN(parseInt(a.list[i], 10))) return false; }
            var n = a.list.map(function (item) { return parseInt(item, 10); });
            var now = __pacFields(a.gmt);
            if (count == 1) return now.hour == n[0];
            if (count == 2) return __pacWithin(now.hour, n[0], n[1]);
            if (count == 4) return __pacWithin(now.hour * 60 + now.minute, n[0] * 60 + n[1], n[2] * 60 + n[3]);
            return __pacWithin(now.hour * 3600 + now.minute * 60 + now.second,
                n[0] * 3600 + n[1] * 60 + n[2], n[3] * 3600 + n[4] * 60 + n[5]);
        }
        """#
}
