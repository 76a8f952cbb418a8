import Testing

@Test func placeholderWharfContentTypes() {}
