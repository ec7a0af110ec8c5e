f3f3261c-de44-48b0-bd9c-2ffac591d24f
