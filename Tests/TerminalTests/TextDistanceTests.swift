import Terminal
import Testing

/// "Did you mean": the edits between two words, and the one name a mistyped word was meant to be.
@Suite struct TextDistanceTests {
    @Test func eachInsertionDeletionSubstitutionOrSwapIsOneEdit() {
        #expect(TextDistance.edits("scan", "scan") == 0)
        #expect(TextDistance.edits("scn", "scan") == 1)
        #expect(TextDistance.edits("scann", "scan") == 1)
        #expect(TextDistance.edits("sxan", "scan") == 1)
        #expect(TextDistance.edits("sacn", "scan") == 1)
        #expect(TextDistance.edits("", "rig") == 3)
        #expect(TextDistance.edits("connect", "") == 7)
    }

    @Test func theSuggestionIsTheOneNearestNameWithinItsReach() {
        let names = ["scan", "connect", "console", "rig", "runs"]
        #expect(TextDistance.suggestion(for: "conect", among: names) == "connect")
        #expect(TextDistance.suggestion(for: "Scan", among: names) == "scan", "the word is compared in lower case")
        #expect(TextDistance.suggestion(for: "cnosole", among: names) == "console", "two edits in a long word")
        #expect(TextDistance.suggestion(for: "rgi", among: names) == "rig")
        #expect(TextDistance.suggestion(for: "xyz", among: names) == nil, "nothing near")
        #expect(TextDistance.suggestion(for: "run", among: names) == "runs")
        #expect(TextDistance.suggestion(for: "rug", among: ["rig", "rag"]) == nil, "two names equally near")
        #expect(TextDistance.suggestion(for: "scan", among: names) == nil, "a name is not mistyped")
    }
}
