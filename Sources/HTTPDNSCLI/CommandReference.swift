import Foundation

/// One command's documentation and options, the single source of its parser, its one-line-per-option
/// `--help`, its detailed help (`httpdns help COMMAND`), its man page and its shell completion, so
/// none of them can list an option the command does not take.
struct CommandReference {
    /// Options that belong together, under a heading in `--help all`, the detailed help and the
    /// man page (pins beside pins, name resolution beside name resolution).
    struct Section {
        let title: String
        let options: [ArgumentParser.Option]
    }

    /// The command's name (`fetch`); empty for `httpdns` itself.
    let name: String
    /// What follows the command's name in a usage line (`[options] URL...`).
    let synopsis: String
    /// One line: what the command does.
    let summary: String
    /// Paragraphs explaining the command, separated by empty lines.
    let description: String
    let sections: [Section]
    /// Names of the options `--help` lists (`-X`, `--cacert`), as curl's `--help` lists its most used
    /// ones, so that it fits one screen; `--help all` lists every option.
    let mostUsed: Set<String>
    /// The exit statuses and what each means (`ExitStatusTable`).
    let exitStatus: [(status: String, meaning: String)]

    /// The `-h` every command takes, last.
    static let helpSection = Section(
        title: "Help",
        options: [
            .init(names: ["-h", "--help"], arity: .flag, summary: "This help (--help all: every option)", detail: "This help: the most used options; --help all lists every one.")
        ])

    /// Every option, in the order help lists them.
    var options: [ArgumentParser.Option] { sections.flatMap(\.options) }

    /// The parser for exactly these options.
    var parser: ArgumentParser { ArgumentParser(command: name, options: options) }

    private var fullName: String { name.isEmpty ? "httpdns" : "httpdns \(name)" }

    /// The names and value of an option as help shows them: `-X, --request METHOD`.
    static func label(_ option: ArgumentParser.Option) -> String {
        let short = option.names.filter { !$0.hasPrefix("--") }
        let long = option.names.filter { $0.hasPrefix("--") }
        let names = (short + long).joined(separator: ", ")
        let value = option.valueName.map { " \($0)" } ?? ""
        return (short.isEmpty ? "    " : "") + names + value
    }

    /// Whether `option` is one `--help` lists.
    func isMostUsed(_ option: ArgumentParser.Option) -> Bool { !mostUsed.isDisjoint(with: option.names) }

    /// The topics `--help TOPIC` takes, as curl's `--help all`.
    static let helpTopics = ["all"]

    /// What `--help` prints: `--help all` (the argument right after it, as curl's) lists every option.
    /// - Throws: `UsageError` naming a topic that is not one of `helpTopics`, and listing them.
    func help(for parsed: ArgumentParser.Parsed) throws(UsageError) -> String {
        guard let topic = parsed.argumentAfter["help"] else { return shortHelp() }
        guard Self.helpTopics.contains(topic) else {
            let topics = Self.helpTopics.map { "'\($0)'" }.joined(separator: ", ")
            throw UsageError("unknown help topic '\(topic)' for \(fullName) --help; the topics are: \(topics)", command: name.isEmpty ? nil : name)
        }
        return shortHelp(all: true)
    }

    /// The gap between a help table's two columns: at least two spaces, as curl's and man(1)'s.
    static let columnGap = 2

    /// `rows` as a two-column table, curl's `--help` layout: each name `indent` spaces in (one, as
    /// curl's, which leaves the summaries 48 columns of 80), each text starting at one column,
    /// `columnGap` spaces past the longest name (of `rows`, or `width` when larger), so that no name
    /// runs into its text and every text lines up.
    static func columns(_ rows: [(name: String, text: String)], indent: Int = 1, width: Int = 0) -> [String] {
        let width = max(width, rows.map(\.name.count).max() ?? 0)
        return rows.map { row in
            String(repeating: " ", count: indent) + row.name.padding(toLength: width + columnGap, withPad: " ", startingAt: 0) + row.text
        }
    }

    /// `--help`: the usage line, the summary, then one line per option: the most used ones within
    /// one screen (24 lines), or with `all` every one under its section's heading. Its column is
    /// the same for both: past the longest label of every option.
    func shortHelp(all: Bool = false) -> String {
        var lines = ["Usage: \(fullName) \(synopsis)", summary]
        let width = options.map { Self.label($0).count }.max() ?? 0
        func table(_ options: [ArgumentParser.Option]) -> [String] {
            Self.columns(options.map { (Self.label($0), $0.summary) }, width: width)
        }
        let page = name.isEmpty ? "COMMAND" : name
        if all {
            for section in sections { lines += ["", "\(section.title):"] + table(section.options) }
            lines += ["", "'httpdns help \(page)' explains each option; so does 'man \(name.isEmpty ? "httpdns" : "httpdns-" + name)'."]
        } else {
            lines += ["", "Options:"] + table(options.filter(isMostUsed))
            lines += ["", "All options: '\(fullName) --help all'; explained: 'httpdns help \(page)'"]
        }
        return lines.joined(separator: "\n")
    }

    /// `httpdns help COMMAND`: the man page as plain text.
    func detailedHelp() -> String {
        var text = "Usage: \(fullName) \(synopsis)\n\n\(Self.wrap(summary, indent: 0))\n\n"
        for paragraph in Self.paragraphs(description) { text += Self.wrap(paragraph, indent: 0) + "\n\n" }
        for section in sections {
            text += "\(section.title):\n"
            for option in section.options {
                text += "  \(Self.label(option).trimmingCharacters(in: .whitespaces))\n"
                for paragraph in Self.paragraphs(option.detail.isEmpty ? option.summary : option.detail) {
                    text += Self.wrap(paragraph, indent: 8) + "\n"
                }
            }
            text += "\n"
        }
        text += "Exit status (curl's numbers where curl has the same failure):\n"
        // The meanings start at one column (at least column 12), wrapped lines too.
        let width = max(8, exitStatus.map(\.status.count).max() ?? 0)
        let column = 2 + width + Self.columnGap
        for (status, meaning) in exitStatus {
            let lines = Self.wrap(meaning, indent: column).split(separator: "\n", omittingEmptySubsequences: false)
            text += Self.columns([(status, String(lines[0].dropFirst(column)))], indent: 2, width: width)[0] + "\n"
            for line in lines.dropFirst() { text += line + "\n" }
        }
        return text.trimmingCharacters(in: .newlines)
    }

    /// The man page, in roff (man(7) macros).
    func manPage(section: String = "1", date: String = "2026") -> String {
        let page = name.isEmpty ? "httpdns" : "httpdns-\(name)"
        var roff = ".TH \(page.uppercased()) \(section) \"\(date)\" \"httpdns \(HTTPDNSTool.version)\" \"User Commands\"\n"
        roff += ".SH NAME\n\(page) \\- \(Self.escape(summary))\n"
        roff += ".SH SYNOPSIS\n.B \(fullName)\n\(Self.escape(synopsis))\n"
        roff += ".SH DESCRIPTION\n"
        for paragraph in Self.paragraphs(description) { roff += ".PP\n\(Self.escape(paragraph))\n" }
        roff += ".SH OPTIONS\n"
        for group in sections {
            // httpdns(1)'s one section is its options: no "Options" heading under OPTIONS.
            if sections.count > 1 { roff += ".SS \(Self.escape(group.title))\n" }
            for option in group.options {
                let names = (option.names.filter { !$0.hasPrefix("--") } + option.names.filter { $0.hasPrefix("--") })
                    .map { "\\fB\(Self.escape($0))\\fR" }.joined(separator: ", ")
                let value = option.valueName.map { " \\fI\(Self.escape($0))\\fR" } ?? ""
                roff += ".TP\n\(names)\(value)\n"
                let paragraphs = Self.paragraphs(option.detail.isEmpty ? option.summary : option.detail)
                roff += paragraphs.map(Self.escape).joined(separator: "\n.IP\n") + "\n"
            }
        }
        roff += ".SH EXIT STATUS\n.PP\ncurl's numbers where curl has the same failure.\n"
        for (status, meaning) in exitStatus { roff += ".TP\n.B \(Self.escape(status))\n\(Self.escape(meaning))\n" }
        roff += ".SH SEE ALSO\n"
        let others = (["httpdns"] + HTTPDNSTool.commands.map { "httpdns-\($0.name)" }).filter { $0 != page }
        roff += others.map { "\\fB\($0)\\fR(1)" }.joined(separator: ", ") + ", \\fBcurl\\fR(1)\n"
        return roff
    }

    /// The man page as Markdown, for Documentation/commands/ (`--generate-markdown`): the command
    /// reference a reader of the repository finds, the same text as the man page.
    func markdownPage() -> String {
        let page = name.isEmpty ? "httpdns" : "httpdns-\(name)"
        var text = "# \(fullName)\n\n<!-- Made by 'httpdns --generate-markdown Documentation/commands' from the option tables; do not edit. -->\n\n"
        text += "\(Self.code(summary))\n\n```\n\(fullName) \(synopsis)\n```\n\n"
        for paragraph in Self.paragraphs(description) { text += Self.code(paragraph) + "\n\n" }
        for section in sections {
            text += "## \(section.title)\n\n"
            for option in section.options {
                let label = "`\(Self.label(option).trimmingCharacters(in: .whitespaces))`"
                let paragraphs = Self.paragraphs(option.detail.isEmpty ? option.summary : option.detail).map(Self.code)
                text += "- \(label): " + paragraphs.joined(separator: "\n\n  ") + "\n"
            }
            text += "\n"
        }
        text += "## Exit status\n\n"
        text +=
            name.isEmpty
            ? "0 on success, 2 for an unknown command or option, 23 when writing the output or the pages fails; each command's own are in [CLI.md](../CLI.md#exit-statuses).\n\n"
            : "\(exitStatus.map(\.status).joined(separator: ", ")): see [CLI.md](../CLI.md#exit-statuses).\n\n"
        let others = (["httpdns"] + HTTPDNSTool.commands.map { "httpdns-\($0.name)" }).filter { $0 != page }
        text += "See also: " + others.map { "[\($0)](\($0).md)" }.joined(separator: ", ") + "."
        return text + "\n"
    }

    /// `text` with each option name, and the argument written after it, in code (`-o FILE`, `--cacert`), for Markdown.
    static func code(_ text: String) -> String {
        // An option is --name or one letter after '-' (so -HOST:PORT is no option); its argument,
        // when one follows (quoted, a placeholder in capitals, or --help's "all"), is in the same span.
        text.replacingOccurrences(
            of: #"(?<![\w.-])(--[a-z][a-z0-9.-]*[a-z0-9]|-[a-zA-Z0-9])(?![\w])((?: '[^']*'| @?[A-Z][A-Z0-9_|:.,/\[\]+-]*(?<![.,:])(?![\w])| all(?![\w]))?)"#,
            with: "`$1$2`", options: .regularExpression)
    }

    /// Paragraphs of `text`: split at empty lines, each joined into one line.
    static func paragraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n")
            .map { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
            .filter { !$0.isEmpty }
    }

    /// `text` wrapped at 80 columns (a terminal's, as curl's help), each line indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int, width: Int = 80) -> String {
        let prefix = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, prefix.count + line.count + 1 + word.count > width {
                lines.append(prefix + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(prefix + line) }
        return lines.joined(separator: "\n")
    }

    /// Text safe in a roff line: backslashes escaped, and a leading '.' or '\'' kept from being a
    /// request.
    static func escape(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
