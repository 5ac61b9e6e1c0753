// "Is it my turn at this table?" in one place, and the tone when the answer becomes yes
// (once per turn, never when the page is first drawn). The tab's title is not written
// here: lib/notify.js owns it (its count of the tables waiting for me), and the table
// page asks it to count again when this answer changes.

let wasMine = null;

export function myTurn(view) {
  const me = view.viewer;
  if (me === null || me === undefined || view.phase !== "playing") return false;
  return view.to_move.includes(me) && (view.legal || []).some((body) => !body.type.startsWith("table."));
}

// Called on every render of the table page with the current answer; true when it changed.
export function noticeTurn(mine) {
  if (mine && wasMine === false) chime();
  const changed = wasMine !== null && mine !== wasMine;
  wasMine = mine;
  return changed;
}

export function forgetTurn() {
  wasMine = null;
}

function chime() {
  try {
    const Audio = window.AudioContext || window.webkitAudioContext;
    if (!Audio) return;
    const audio = new Audio();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
    tone.onended = () => audio.close();
  } catch {
    /* a page without sound (or not yet allowed to play one) stays silent */
  }
}
