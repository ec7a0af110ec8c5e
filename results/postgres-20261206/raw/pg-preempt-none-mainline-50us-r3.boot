a3971cab-a0b7-4b05-8f2d-df5ca93cecec
