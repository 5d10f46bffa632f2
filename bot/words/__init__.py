"""What the bot says, in each language: the message catalogues and their reader. The ground
floor of the service: it imports nothing of ours."""
