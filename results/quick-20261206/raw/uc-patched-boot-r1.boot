a828ebe2-1722-4f9a-bc8a-c5ac897db92e
