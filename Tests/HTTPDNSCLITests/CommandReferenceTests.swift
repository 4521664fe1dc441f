import Foundation
import Testing
@testable import HTTPDNSCLI

/// `--help`, `httpdns help`, the man pages and the completions come from each command's option
/// table: these hold them to it, so no help line names an option its command refuses.
@Suite("help, man pages and completion match what each command's parser accepts")
struct CommandReferenceTests {
    static let commands = HTTPDNSTool.commands

    /// Every option-looking word in `text`: `--name` or `-x` standing alone.
    static func mentionedOptions(_ text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"(?<![\w/.\-])(--[a-z][a-z0-9.\-]*[a-z0-9]|-[a-zA-Z0-9])(?![\w])"#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } })
    }

    @Test(
        "every option the parser accepts has a one-line summary and appears in --help all, the detailed help and the man page",
        arguments: commands.map(\.name))
    func everyOptionIsDocumented(name: String) throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let short = command.shortHelp(all: true)
        let detailed = command.detailedHelp()
        let man = command.manPage().replacingOccurrences(of: "\\-", with: "-")
        for option in command.parser.options {
            #expect(!option.summary.isEmpty, "\(option.names) has no summary")
            #expect(!option.summary.contains("\n"), "\(option.names)'s summary is more than one line")
            for optionName in option.names {
                #expect(Self.mentionedOptions(short).contains(optionName), "\(name) --help all does not list \(optionName)")
                #expect(Self.mentionedOptions(detailed).contains(optionName), "httpdns help \(name) does not list \(optionName)")
                #expect(man.contains("\\fB\(optionName)\\fR"), "httpdns-\(name)(1) does not list \(optionName)")
            }
        }
    }

    @Test("every option a command's help or man page mentions is one that command accepts", arguments: commands.map(\.name))
    func everyMentionIsAccepted(name: String) throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let accepted = Set(command.parser.options.flatMap(\.names))
        let man = command.manPage().replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\fB", with: " ")
            .replacingOccurrences(of: "\\fR", with: " ").replacingOccurrences(of: "\\fI", with: " ")
        for (source, text) in [("--help", command.shortHelp()), ("--help all", command.shortHelp(all: true)), ("help", command.detailedHelp()), ("man page", man)] {
            // "fetch --pinnedpubkey" in pins's page names fetch's option, as fetch's.
            let own = text.replacingOccurrences(of: #"fetch --[a-z0-9.\-]+"#, with: "fetch", options: .regularExpression)
            let unknown = Self.mentionedOptions(own).subtracting(accepted)
            #expect(unknown.isEmpty, "httpdns \(name)'s \(source) mentions \(unknown.sorted()), which \(name) refuses")
        }
    }

    @Test("each option is one line of --help all, within 80 columns, as curl's", arguments: commands.map(\.name))
    func shortHelpIsOneLinePerOption(name: String) throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let lines = command.shortHelp(all: true).split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines { #expect(line.count <= 80, "too long (\(line.count) columns): \(line)") }
        let optionLines = lines.filter { $0.hasPrefix(" -") || $0.hasPrefix("     --") }
        #expect(optionLines.count == command.options.count)
    }

    @Test(
        "--help fits one screen (24 lines of at most 80 columns): the most used options, one line each, then how to see all",
        arguments: commands.map(\.name))
    func shortHelpFitsOneScreen(name: String) throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let lines = command.shortHelp().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 24, "\(name) --help is \(lines.count) lines")
        for line in lines { #expect(line.count <= 80, "too long (\(line.count) columns): \(line)") }
        let accepted = Set(command.options.flatMap(\.names))
        #expect(command.mostUsed.isSubset(of: accepted), "not options of \(name): \(command.mostUsed.subtracting(accepted).sorted())")
        let optionLines = lines.filter { $0.hasPrefix(" -") || $0.hasPrefix("     --") }
        #expect(optionLines.count == command.options.filter(command.isMostUsed).count)
        #expect(optionLines.count < command.options.count, "\(name) --help lists every option")
        let last = try #require(lines.last)
        #expect(last.contains("'httpdns \(name) --help all'") && last.contains("'httpdns help \(name)'"), "\(last)")
    }

    /// Where `text` lays out `rows` as a table whose texts all start at one column, with at least
    /// two spaces between each name and its text; a row's text may be the first of several lines
    /// (`wrapped`). Returns what is wrong, empty when nothing is.
    static func misalignedRows(in text: String, _ rows: [(name: String, text: String)], wrapped: Bool = false) -> [String] {
        let lines = text.split(separator: "\n").map(String.init)
        var problems: [String] = []
        var columns: [Int: [String]] = [:]
        for row in rows {
            let name = row.name.trimmingCharacters(in: .whitespaces)
            func starts(_ line: String, _ prefix: String) -> Bool { line.drop { $0 == " " }.hasPrefix(prefix) }
            guard let line = lines.first(where: { starts($0, name + "  ") }) else {
                problems.append("'\(name)' is not followed by at least two spaces: \(lines.first { starts($0, name) } ?? "(no line)")")
                continue
            }
            let rest = line.drop { $0 == " " }.dropFirst(name.count)
            let description = String(rest.drop { $0 == " " })
            columns[line.count - description.count, default: []].append(row.name)
            if wrapped ? !(row.text.hasPrefix(description) && !description.isEmpty) : description != row.text {
                problems.append("'\(row.name)' is followed by '\(description)', not its text '\(row.text)'")
            }
        }
        if columns.count > 1 { problems.append("the texts start at different columns: \(columns.sorted { $0.key < $1.key })") }
        return problems
    }

    @Test(
        "every help table lines its texts up in one column, at least two spaces past the longest name: --help, --help all and the exit statuses of httpdns help",
        arguments: [""] + commands.map(\.name))
    func helpColumnsLineUp(name: String) throws {
        let command = try #require(([HTTPDNSTool.reference] + Self.commands).first { $0.name == name })
        let rows = { (options: [ArgumentParser.Option]) in options.map { (name: CommandReference.label($0), text: $0.summary) } }
        var problems = Self.misalignedRows(in: command.shortHelp(all: true), rows(command.options))
        problems += Self.misalignedRows(in: command.shortHelp(), rows(command.options.filter(command.isMostUsed)))
        // --help and --help all share the column: the most used options are found in the first.
        problems += Self.misalignedRows(in: command.shortHelp() + "\n" + command.shortHelp(all: true), rows(command.options))
        problems += Self.misalignedRows(in: command.detailedHelp(), command.exitStatus.map { (name: $0.status, text: $0.meaning) }, wrapped: true)
        #expect(problems.isEmpty, "httpdns \(name): \(problems.joined(separator: "\n"))")
    }

    @Test("httpdns --help lines up its commands and its options, each table in one column with at least two spaces")
    func toolUsageColumnsLineUp() {
        let commandRows = HTTPDNSTool.commands.map { (name: $0.name + " " + $0.synopsis.replacingOccurrences(of: "[options] ", with: ""), text: $0.summary) }
        var problems = Self.misalignedRows(in: HTTPDNSTool.usage, commandRows)
        problems += Self.misalignedRows(in: HTTPDNSTool.usage, HTTPDNSTool.reference.options.map { (name: CommandReference.label($0), text: $0.summary) })
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test(
        "help text stands on its own: no repository path, and a pointer to a document is a sentence ('See Resolver.md in the documentation.')",
        arguments: [""] + commands.map(\.name))
    func documentPointersAreSentences(name: String) throws {
        let command = try #require(([HTTPDNSTool.reference] + Self.commands).first { $0.name == name })
        let texts = [command.summary, command.description] + command.options.flatMap { [$0.summary, $0.detail] }
        // The pages --generate-markdown writes (httpdns.md, httpdns-fetch.md) are its output, not pointers.
        let document = try NSRegularExpression(pattern: #"(?<![\w-])(?!httpdns[\w-]*\.md)[\w-]+\.md\b"#)
        for paragraph in texts.flatMap(CommandReference.paragraphs) {
            for path in ["Documentation/", "Sources/", ".docc"] {
                #expect(!paragraph.contains(path), "httpdns \(name): a repository path in help text: \(paragraph)")
            }
            for sentence in paragraph.components(separatedBy: ". ") {
                let range = NSRange(sentence.startIndex..., in: sentence)
                guard document.firstMatch(in: sentence, range: range) != nil else { continue }
                #expect(
                    sentence.hasPrefix("See ") && sentence.contains(" in the documentation"),
                    "httpdns \(name): a document named outside a 'See ... in the documentation.' sentence: \(sentence)")
            }
        }
    }

    @Test("httpdns --help fits one screen too")
    func toolUsageFitsOneScreen() {
        let lines = HTTPDNSTool.usage.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 24)
        for line in lines { #expect(line.count <= 80, "too long (\(line.count) columns): \(line)") }
    }

    @Test("httpdns help COMMAND, the man page as text, fits 80 columns too", arguments: [""] + commands.map(\.name))
    func detailedHelpFits80Columns(name: String) throws {
        let command = try #require(([HTTPDNSTool.reference] + Self.commands).first { $0.name == name })
        for line in command.detailedHelp().split(separator: "\n") { #expect(line.count <= 80, "too long (\(line.count) columns): \(line)") }
    }

    @Test("Documentation/CLI.md's exit-status table is the one the man pages are made from (ExitStatusTable)")
    func documentedExitStatuses() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Documentation/CLI.md")
        let text = try String(contentsOf: file, encoding: .utf8)
        let marker = try #require(text.range(of: "<!-- Made from Sources/HTTPDNSCLI/ExitStatusTable.swift"))
        let table = text[marker.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
            .prefix { $0.hasPrefix("|") }.joined(separator: "\n")
        #expect(table == ExitStatusTable.markdown(), "CLI.md's table should read:\n\(ExitStatusTable.markdown())")
        // Each command's page lists exactly its entries.
        for command in Self.commands {
            let listed = command.exitStatus.map(\.status)
            #expect(listed == ExitStatusTable.entries.filter { $0.commands.contains(command.name) }.map(\.status), "\(command.name)")
            #expect(listed.first == "0" && listed.contains("2"), "\(command.name): \(listed)")
        }
    }

    @Test("Documentation/commands holds each page as Markdown, as 'httpdns --generate-markdown' writes it from the option tables")
    func markdownPagesAreCurrent() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Documentation/commands")
        for page in [HTTPDNSTool.reference] + Self.commands {
            let name = page.name.isEmpty ? "httpdns.md" : "httpdns-\(page.name).md"
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            #expect(text == page.markdownPage(), "Documentation/commands/\(name) is out of date: run httpdns --generate-markdown Documentation/commands")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
                == (["httpdns.md"] + Self.commands.map { "httpdns-\($0.name).md" }).sorted())
    }

    @Test("resolve takes no connection option: --no-happy-eyeballs and --connect-timeout are refused, not ignored")
    func resolveRefusesConnectionOptions() {
        #expect(throws: UsageError.self) { try ResolveCommand.parser.parse(["--no-happy-eyeballs", "a.test"]) }
        #expect(throws: UsageError.self) { try ResolveCommand.parser.parse(["--connect-timeout", "1", "a.test"]) }
        #expect(!ResolveCommand.help.contains("happy-eyeballs"))
        #expect(!ResolveCommand.help.contains("connect-timeout"))
    }

    @Test("probe's help never mentions -s, which probe refuses")
    func probeHelpDoesNotMentionSilent() {
        #expect(throws: UsageError.self) { try ProbeCommand.parser.parse(["-s", "https://a.test/"]) }
        #expect(!Self.mentionedOptions(ProbeCommand.reference.detailedHelp()).contains("-s"))
    }

    @Test("probe's help states no exit status probe never returns: a trust failure makes the address FAILED (exit 1), not fetch's 58, 90 or 91")
    func probeHelpHasNoFetchExitStatuses() {
        let help = ProbeCommand.reference.detailedHelp() + ProbeCommand.reference.shortHelp(all: true)
        for status in ["exit 58", "exit 90", "exit 91", "is exit 58", "else exit 91"] {
            #expect(!help.contains(status), "\(status)")
        }
        #expect(FetchCommand.reference.shortHelp(all: true).contains("(exit 90)"))
    }

    @Test("httpdns --generate-man writes httpdns.1 and one page per command, each a man(7) page naming itself")
    func generatesManPages() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-man-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let status = await HTTPDNSTool.run(["--generate-man", directory.path], console: Console(output: { _ in }, error: { _ in }), environment: [:])
        #expect(status == 0)
        for page in ["httpdns", "httpdns-resolve", "httpdns-fetch", "httpdns-probe", "httpdns-pins"] {
            let text = try String(contentsOf: directory.appendingPathComponent("\(page).1"), encoding: .utf8)
            #expect(text.hasPrefix(".TH \(page.uppercased()) 1 "))
            #expect(text.contains(".SH OPTIONS"))
            #expect(text.contains(".SH EXIT STATUS"))
        }
    }

    @Test("every command's exit table and httpdns's own list 23, for output that cannot be written", arguments: commands.map(\.name))
    func exitTablesListWriteFailure(name: String) {
        #expect(ExitStatusTable.entries(for: name).contains { $0.status == "23" })
        #expect(HTTPDNSTool.reference.exitStatus.contains { $0.status == "23" })
    }

    @Test("httpdns refuses what it would ignore: extra arguments to help and --version; an unknown option is called an option")
    func toolRefusesExtraArguments() async {
        for arguments in [["help", "fetch", "extra"], ["--help", "fetch", "extra"], ["--version", "extra"]] {
            let output = LockedOutput()
            #expect(await HTTPDNSTool.run(arguments, console: output.console, environment: [:]) == HTTPDNSTool.ExitStatus.usage, "\(arguments)")
            #expect(output.text.isEmpty)
        }
        let bogus = LockedOutput()
        #expect(await HTTPDNSTool.run(["--bogus"], console: bogus.console, environment: [:]) == HTTPDNSTool.ExitStatus.usage)
        #expect(bogus.errorText == "httpdns: unknown option '--bogus'; run 'httpdns --help'\n")
        let helpHelp = LockedOutput()
        #expect(await HTTPDNSTool.run(["help", "help"], console: helpHelp.console, environment: [:]) == 0)
        #expect(helpHelp.text == HTTPDNSTool.reference.detailedHelp() + "\n")
    }

    @Test("--help=all is --help all, as --max-time=5 is --max-time 5", arguments: commands.map(\.name))
    func helpTopicAfterEquals(name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let output = LockedOutput()
        #expect(await HTTPDNSTool.run([name, "--help=all"], console: output.console, environment: [:]) == 0)
        #expect(output.text == command.shortHelp(all: true) + "\n")
    }

    @Test("httpdns --help and httpdns help give one usage line; every command description ends with a full stop")
    func oneUsageLine() {
        #expect(HTTPDNSTool.usage.hasPrefix("Usage: httpdns COMMAND [options] | --version | --generate-KIND ARG\n"))
        #expect(HTTPDNSTool.reference.detailedHelp().hasPrefix("Usage: httpdns COMMAND [options] | --version | --generate-KIND ARG\n"))
        let commandLines = HTTPDNSTool.usage.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Commands:" }.dropFirst().prefix { !$0.isEmpty }
        #expect(commandLines.count == 5)
        for line in commandLines { #expect(line.hasSuffix("."), "\(line)") }
    }

    @Test("the Markdown pages keep an option and the argument written after it in one code span, and -HOST is no option")
    func markdownCodeSpans() {
        #expect(CommandReference.code("give -u 'USER:' for an empty one") == "give `-u 'USER:'` for an empty one")
        #expect(CommandReference.code("as -w '%{json}\\n' does") == "as `-w '%{json}\\n'` does")
        #expect(CommandReference.code("-x '' uses none") == "`-x ''` uses none")
        #expect(CommandReference.code("As --type A: IPv4") == "As `--type A`: IPv4")
        #expect(CommandReference.code("--help all lists every one") == "`--help all` lists every one")
        #expect(CommandReference.code("and -HOST:PORT removes it") == "and -HOST:PORT removes it")
        #expect(CommandReference.code("with -L, each -o FILE.") == "with `-L`, each `-o FILE`.")
    }

    @Test("--generate-man into a directory that cannot be made exits 23, naming the directory and the system's reason")
    func generateManFailureIsWriteFailure() async {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(["--generate-man", "/proc/httpdns-x/man1"], console: output.console, environment: [:])
        #expect(status == 23)
        #expect(output.errorText == "httpdns: --generate-man: cannot create the directory '/proc/httpdns-x': No such file or directory\n")
    }

    @Test("httpdns help COMMAND prints the detailed help; COMMAND --help the most used options, --help all every one", arguments: commands.map(\.name))
    func helpCommand(name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let output = LockedOutput()
        #expect(await HTTPDNSTool.run(["help", name], console: output.console, environment: [:]) == 0)
        #expect(output.text == command.detailedHelp() + "\n")
        let short = LockedOutput()
        #expect(await HTTPDNSTool.run([name, "--help"], console: short.console, environment: [:]) == 0)
        #expect(short.text == command.shortHelp() + "\n")
        let all = LockedOutput()
        #expect(await HTTPDNSTool.run([name, "--help", "all"], console: all.console, environment: [:]) == 0)
        #expect(all.text == command.shortHelp(all: true) + "\n")
    }

    @Test(
        "--help takes the topic right after it: an unknown one is a usage error (exit 2) naming it and listing the topics; a URL before --help is no topic",
        arguments: commands.map(\.name))
    func unknownHelpTopic(name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let bogus = LockedOutput()
        #expect(await HTTPDNSTool.run([name, "--help", "bogus"], console: bogus.console, environment: [:]) == HTTPDNSTool.ExitStatus.usage)
        #expect(bogus.text.isEmpty)
        #expect(
            bogus.errorText == "httpdns: unknown help topic 'bogus' for httpdns \(name) --help; the topics are: 'all' (see 'httpdns help \(name)')\n",
            "\(bogus.errorText)")
        let short = LockedOutput()
        #expect(await HTTPDNSTool.run([name, "-h", "all"], console: short.console, environment: [:]) == 0)
        #expect(short.text == command.shortHelp(all: true) + "\n")
        let trailing = LockedOutput()
        #expect(await HTTPDNSTool.run([name, "https://a.test/", "--help"], console: trailing.console, environment: [:]) == 0)
        #expect(trailing.text == command.shortHelp() + "\n")
    }

    @Test("the completions offer each command's options, and only those", arguments: ["bash", "zsh"])
    func completions(shell: String) throws {
        let script = try #require(ShellCompletion.script(for: shell))
        for command in Self.commands {
            for name in command.options.flatMap(\.names) { #expect(script.contains(name), "\(shell) completion lacks \(name)") }
        }
        #expect(!script.contains("--no-such-option"))
        #expect(ShellCompletion.script(for: "fish") == nil)
    }

    /// Every option with a fixed set of values, as (the words before it, its name, its values).
    static var choices: [(words: [String], name: String, values: [String])] {
        let commands = [([String](), HTTPDNSTool.reference)] + Self.commands.map { ([$0.name], $0) }
        return commands.flatMap { words, command in
            command.options.filter { !$0.values.isEmpty }.flatMap { option in option.names.map { (words, $0, option.values) } }
        }
    }

    @Test("bash completes each fixed-value option (--type, --doh-method, --provider, --cert-type, --generate-completion) with its values from the option table")
    func bashCompletesValues() throws {
        let names = Set(Self.choices.map(\.name))
        #expect(names.isSuperset(of: ["--type", "--doh-method", "--provider", "--cert-type", "--generate-completion"]), "\(names.sorted())")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-completion-\(UUID().uuidString).bash")
        defer { try? FileManager.default.removeItem(at: file) }
        try ShellCompletion.bash().write(to: file, atomically: true, encoding: .utf8)
        // One bash for every option (each a process would hold a thread of the cooperative pool,
        // which the suite's timing tests feel): a line of what it offers per option.
        var script = ". '\(file.path)'\n"
        for choice in Self.choices {
            let words = ["httpdns"] + choice.words + [choice.name, ""]
            script += "COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1); COMPREPLY=()\n"
            script += "_httpdns; echo \"${COMPREPLY[*]}\"\n"
        }
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, choice) in Self.choices.enumerated() {
            let offered = index < lines.count ? lines[index] : "(nothing)"
            #expect(offered == choice.values.joined(separator: " "), "\((choice.words + [choice.name]).joined(separator: " ")): \(offered)")
        }
    }

    @Test("zsh completes each fixed-value option with its values from the option table")
    func zshCompletesValues() throws {
        let script = try #require(ShellCompletion.script(for: "zsh"))
        for choice in Self.choices {
            let values = choice.values.joined(separator: " ")
            let offered = script.split(separator: "\n").contains { line in
                (line.contains("'\(choice.name)[") && line.contains(":(\(values))'")) || line.contains("\(choice.name)) (( CURRENT == 3 )) && compadd \(values) ;;")
            }
            #expect(offered, "zsh does not complete \(choice.name) with \(values)")
        }
    }

    @Test("the bash completion is valid bash")
    func bashCompletionParses() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-completion-\(UUID().uuidString).bash")
        defer { try? FileManager.default.removeItem(at: file) }
        try ShellCompletion.bash().write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-n", file.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}

/// A console whose standard output the test reads back.
final class LockedOutput: @unchecked Sendable { // `data` and `errors` are guarded by `lock`
    private let lock = NSLock()
    private var data = Data()
    private var errors = ""

    var console: Console {
        Console(output: { chunk in self.lock.withLock { self.data.append(chunk) } }, error: { line in self.lock.withLock { self.errors += line } })
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    /// What the command wrote to standard error.
    var errorText: String { lock.withLock { errors } }
}
