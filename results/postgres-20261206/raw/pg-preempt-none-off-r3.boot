0bec3f4d-6bfd-46b6-89c1-0fc3c611a4a4
