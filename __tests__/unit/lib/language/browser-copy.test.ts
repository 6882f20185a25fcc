// The loader that asks for the visitor's words once a page has loaded. In Node (the server's
// render of every page) there is no page to wait for, and it must ask nothing.
import { WORDS_PATH } from '@lib/language/paths';

type Loader = typeof import('@lib/language/browser-copy');
const freshLoader = () => {
  let loader: Loader | undefined;
  jest.isolateModules(() => {
    loader = jest.requireActual<Loader>('@lib/language/browser-copy');
  });
  return loader!;
};

const globals = globalThis as Record<string, unknown>;

describe('preloadBrowserCopy', () => {
  const fetch = jest.fn(async () => new Response('{}', { status: 503 }));
  beforeEach(() => {
    fetch.mockClear();
    jest.spyOn(globalThis, 'fetch').mockImplementation(fetch);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    delete globals.window;
    delete globals.document;
  });

  it('asks nothing, and throws nothing, where there is no window: the server rendering a page', () => {
    const { preloadBrowserCopy } = freshLoader();
    expect(() => preloadBrowserCopy()).not.toThrow();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('asks for the words once a page has loaded', () => {
    globals.window = globalThis;
    globals.document = { readyState: 'complete' };
    const { preloadBrowserCopy } = freshLoader();
    preloadBrowserCopy();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch).toHaveBeenCalledWith(expect.stringMatching(new RegExp(`^${WORDS_PATH}\\?languages=`)));
  });
});
