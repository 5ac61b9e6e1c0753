// "Is it my turn?" in one place, and what the page does when the answer becomes yes: the
// tab's title says so and a short tone sounds (once per turn, never when the page is
// first drawn). Other parts of the client (notifications, a badge) may read myTurn too.

let wasMine = null;

export function myTurn(view) {
  const me = view.viewer;
  if (me === null || me === undefined || view.phase !== "playing") return false;
  return view.to_move.includes(me) && (view.legal || []).some((body) => !body.type.startsWith("table."));
}

export function turnTitle(mine, title) {
  return `${mine ? "Your turn · " : ""}${title} · Orrery`;
}

// Called on every render of the table page with the current answer.
export function noticeTurn(mine) {
  if (mine && wasMine === false) chime();
  wasMine = mine;
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
