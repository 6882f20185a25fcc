// A stand-in management worker that fails as it loads, before it can listen.
throw new Error('the worker could not load');
