// Which module draws which game; anything else gets the generic drawing.

import * as federation from "./federation.js";
import * as fracturedSky from "./fractured_sky.js";
import * as generic from "./generic.js";
import * as spacecraft from "./spacecraft.js";

const MODULES = { fractured_sky: fracturedSky, spacecraft, federation };

export function gameModule(game) {
  return MODULES[game] || generic;
}
