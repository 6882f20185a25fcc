// A stand-in ingest thread that fails as it loads.
throw new Error('the ingest thread could not load');
