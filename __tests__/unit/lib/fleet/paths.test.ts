// Where the shell answers for itself: under /_next/, where no page of the product can be routed.
import { HOP_HEADER, IDENTITY_PATH, LOST_FILE_PATH, REPORTS_HANDOFF_PATH } from '@lib/fleet/paths';

it.each([
  ['the identity path', IDENTITY_PATH],
  ['the lost-file path', LOST_FILE_PATH],
  ['the reports hand-off path', REPORTS_HANDOFF_PATH],
])('%s is the shell’s own, under /_next/ and outside Next’s static and data folders', (_, path) => {
  expect(path).toMatch(/^\/_next\/app-shell\/[a-z-]+$/);
});

it('marks a peer’s request with a header of the shell’s own, a valid lower-case name', () => {
  expect(HOP_HEADER).toMatch(/^x-app-shell-[a-z-]+$/);
});
