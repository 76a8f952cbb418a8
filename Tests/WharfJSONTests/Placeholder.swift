import Testing

@Test func placeholderWharfJSON() {}
