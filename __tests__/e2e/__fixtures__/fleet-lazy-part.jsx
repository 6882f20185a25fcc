// The lazy part of pages/__fixtures__/fleet/index.fixture.jsx: a chunk of its own, loaded on demand.
export default function FleetLazyPart() {
  return <p data-build={process.env.APP_FIXTURE_BUILD_ID}>The lazy part loaded.</p>;
}
