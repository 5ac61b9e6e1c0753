export { render, handles, label, scores, describe } from "./generic.js";
