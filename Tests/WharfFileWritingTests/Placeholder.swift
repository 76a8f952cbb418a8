import Testing

@Test func placeholderWharfFileWriting() {}
