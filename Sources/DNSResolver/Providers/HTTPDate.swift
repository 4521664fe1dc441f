import Foundation

/// An HTTP `Date` field value (RFC 9110 §5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and,
/// as recipients must also accept, the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// asctime (`Sun Nov  6 08:49:37 1994`) forms. Parsed by hand: no locale, no `DateFormatter`.
enum HTTPDate {
    /// The time `field` gives, or nil when it is none of the three forms (or not a real date).
    static func parse(_ field: String?) -> Date? {
        guard let field else { return nil }
        let parts = field.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: String?
        switch parts.count {
        case 6 where parts[0].hasSuffix(",") && parts[5] == "GMT":
            // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
            guard parts[1].utf8.count == 2, parts[3].utf8.count == 4 else { return nil }
            (day, month, year, time) = (Int(parts[1]), months[parts[2]], Int(parts[3]), parts[4])
        case 4 where parts[0].hasSuffix(",") && parts[3] == "GMT":
            // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"; a two-digit year that looks more
            // than 50 years ahead is in the past century (RFC 9110 §5.6.7).
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard date.count == 3, date[0].utf8.count == 2, date[2].utf8.count == 2, let short = Int(date[2]) else { return nil }
            let century = (Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year ?? 2000) / 100 * 100
            var full = century + short
            if full > (century + 50) { full -= 100 }
            (day, month, year, time) = (Int(date[0]), months[date[1]], full, parts[2])
        case 5:
            // asctime: "Sun" "Nov" "6" "08:49:37" "1994"
            guard parts[4].utf8.count == 4 else { return nil }
            (day, month, year, time) = (Int(parts[2]), months[parts[1]], Int(parts[4]), parts[3])
        default:
            return nil
        }
        guard let day, let month, let year, let time, year >= 1970, (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.utf8.count == 2 }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static let months = ["Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12]

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
