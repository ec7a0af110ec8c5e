ac2cd54c-ed6d-4820-a6b2-abc3c31a9bb9
