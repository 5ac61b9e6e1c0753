// The games' static catalogues, exported from contracts/<game>/catalogue.py by
// `python -m clients.web.export` into catalogue/*.json (committed; a test keeps them
// up to date). Fetched once per page load.

const cache = new Map();

function load(file) {
  if (!cache.has(file)) {
    cache.set(
      file,
      fetch(`catalogue/${file}`).then((response) => (response.ok ? response.json() : null)),
    );
  }
  return cache.get(file);
}

export async function gamesIndex() {
  const index = await load("index.json");
  return index ? index.games : [];
}

export async function catalogue(game) {
  const index = await gamesIndex();
  if (!index.some((g) => g.name === game)) return null;
  return load(`${game}.json`);
}

export async function gameTitle(game) {
  const index = await gamesIndex();
  const found = index.find((g) => g.name === game);
  return found ? found.title : game;
}
