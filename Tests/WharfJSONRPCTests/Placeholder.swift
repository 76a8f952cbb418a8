import Testing

@Test func placeholderWharfJSONRPC() {}
