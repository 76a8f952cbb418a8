import Testing

@Test func placeholderWharfEndToEnd() {}
