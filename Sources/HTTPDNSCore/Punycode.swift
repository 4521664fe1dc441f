/// Punycode (RFC 3492): the Bootstring encoding that turns a Unicode label into the ASCII after `xn--`.
public enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
    private static let initialBias = 72, initialN = 0x80

    /// Encodes one label's code points (RFC 3492 §6.3). `nil` on overflow.
    public static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias
        while handled < input.count {
            guard let m = input.filter({ $0 >= n }).min() else { break }
            guard (m - n) <= (Int(Int32.max) - delta) / (handled + 1) else { return nil }
            delta += (m - n) * (handled + 1)
            n = m
            for c in input {
                if c < n {
                    delta += 1
                    guard delta <= Int(Int32.max) else { return nil }
                }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// Decodes the part after `xn--` (RFC 3492 §6.2). `nil` for invalid input.
    public static func decode(_ text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.allSatisfy({ $0.isASCII }) else { return nil }
        var output: [Int] = []
        var start = 0
        if let dash = scalars.lastIndex(of: "-") {
            output = scalars[..<dash].map { Int($0.value) }
            start = dash + 1
        }
        var n = initialN, i = 0, bias = initialBias
        var index = start
        while index < scalars.count {
            let oldI = i
            var w = 1
            var k = base
            while true {
                guard index < scalars.count, let d = value(of: scalars[index]) else { return nil }
                index += 1
                guard d <= (Int(Int32.max) - i) / w else { return nil }
                i += d * w
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if d < t { break }
                guard w <= Int(Int32.max) / (base - t) else { return nil }
                w *= base - t
                k += base
            }
            bias = adapt(i - oldI, output.count + 1, oldI == 0)
            guard i / (output.count + 1) <= Int(Int32.max) - n else { return nil }
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n <= 0x10FFFF, !(0xD800...0xDFFF).contains(n) else { return nil }
            output.insert(n, at: i)
            i += 1
        }
        var result = ""
        for code in output {
            guard let scalar = Unicode.Scalar(code) else { return nil }
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    private static func adapt(_ delta: Int, _ numPoints: Int, _ firstTime: Bool) -> Int {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / numPoints
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func digit(_ d: Int) -> Character {
        Character(Unicode.Scalar(UInt8(d < 26 ? 97 + d : 22 + d)))
    }

    private static func value(of scalar: Unicode.Scalar) -> Int? {
        switch scalar.value {
        case 48...57: Int(scalar.value) - 22
        case 65...90: Int(scalar.value) - 65
        case 97...122: Int(scalar.value) - 97
        default: nil
        }
    }
}
