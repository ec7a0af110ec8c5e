6c4ae0a9-83ef-46bb-85ee-f2830b7e2fd0
