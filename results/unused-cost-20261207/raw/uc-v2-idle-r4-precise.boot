e8d0b88f-f755-4d5b-a895-fafac0bbdae7
