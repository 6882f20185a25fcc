// The scrubbed texts kept for the next event (docs/performance.md): texts of up to 256 characters,
// 2,048 of them, then the memory starts again. A cache changes the work and never the answer, so
// the work is what these tests count: how often the pattern table reads a text.
type ScrubText = (text: string) => string;

// Paths written out, not in a constant: Jest finds a test's modules (and StrykerJS the tests that
// reach a module) by reading them. The pattern table is loaded here, once, as every other test file
// loads it: loaded inside a test, its table's mutants would count as this test's alone, which only
// counts reads (docs/mutation-testing.md, static mutants).
const actual: typeof import('@lib/reporting/scrub/patterns') = jest.requireActual(
  '@lib/reporting/scrub/patterns',
);

/** A fresh module (an empty memory) whose pattern table counts the texts it reads. */
function freshScrubText(): { scrubText: ScrubText; reads: (text: string) => number } {
  const read: string[] = [];
  let scrubText!: ScrubText;
  jest.isolateModules(() => {
    jest.doMock('@lib/reporting/scrub/patterns', () => ({
      ...actual,
      scrubSecretShapes: (text: string) => {
        read.push(text);
        return actual.scrubSecretShapes(text);
      },
    }));
    ({ scrubText } = jest.requireActual('@lib/reporting/scrub/text') as {
      scrubText: ScrubText;
    });
  });
  return { scrubText, reads: (text) => read.filter((one) => one === text).length };
}

afterEach(() => jest.dontMock('@lib/reporting/scrub/patterns'));

describe('the texts the scrubber remembers', () => {
  it('remembers a text of 256 characters, and not one of 257', () => {
    const { scrubText, reads } = freshScrubText();
    const short = 'a'.repeat(256);
    const long = 'b'.repeat(257);
    for (const text of [short, short, long, long]) expect(scrubText(text)).toBe(text);
    expect(reads(short)).toBe(1);
    expect(reads(long)).toBe(2);
  });

  it('remembers 2,048 texts, and starts again with the 2,049th', () => {
    const { scrubText, reads } = freshScrubText();
    const texts = Array.from({ length: 2048 }, (_, index) => `field ${index}`);
    for (const text of texts) scrubText(text);
    scrubText(texts[0]!);
    expect(reads(texts[0]!)).toBe(1);
    scrubText('one more');
    scrubText(texts[0]!);
    expect(reads(texts[0]!)).toBe(2);
  });

  it('gives the same answer whether it remembers or not', () => {
    const { scrubText } = freshScrubText();
    const secret = 'password=hunter2';
    expect(scrubText(secret)).toBe(scrubText(secret));
    expect(scrubText(secret)).not.toContain('hunter2');
  });
});
