/// How far apart two short words are, for "did you mean …" suggestions.
public enum TextDistance {
    /// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
    /// adjacent characters, each one edit.
    public static func edits(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}

extension TextDistance {
    /// The one of `names` that `word` was probably meant to be: the nearest, when exactly one is nearest
    /// and within one edit (two for words of five letters or more); nil for a word that is one of them.
    public static func suggestion(for word: String, among names: [String]) -> String? {
        guard !names.contains(word) else { return nil }
        let distances = names.map { (name: $0, edits: edits(word.lowercased(), $0)) }
        guard let nearest = distances.map(\.edits).min(), nearest <= (word.count >= 5 ? 2 : 1) else { return nil }
        let closest = distances.filter { $0.edits == nearest }
        return closest.count == 1 ? closest[0].name : nil
    }
}
