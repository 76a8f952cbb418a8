import WharfServer
print("wharf")
