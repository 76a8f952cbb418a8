import WharfJSON
