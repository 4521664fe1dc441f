extension DNSMessage {
    /// Checks that this message answers the query built by `query(name:type:id:paddingBlockSize:)`:
    /// QR set, the same ID (RFC 1035 §4.1.1), and the question echoed (name case-insensitively, type,
    /// class `IN`). A response without a question section is accepted only with a non-zero RCODE,
    /// since some servers omit it when reporting an error.
    /// - Throws: `DNSWireError.notAResponse`, `.idMismatch`, or `.questionMismatch`.
    public func validateResponse(toQueryFor name: String, type: DNSRecordType, id: UInt16 = 0) throws(DNSWireError) {
        guard isResponse else { throw .notAResponse }
        guard self.id == id else { throw .idMismatch(expected: id, received: self.id) }
        let expected = DNSQuestion(name: DNSName.canonical(name) ?? name.lowercased(), type: type)
        guard let question = questions.first else {
            if responseCode != .noError { return }
            throw .questionMismatch(expected: expected, received: nil)
        }
        guard questions.count == 1, question == expected else {
            throw .questionMismatch(expected: expected, received: question)
        }
    }
}
