// The roster activation page's camera step: one frame from the camera, posted as a JPEG data URL;
// the answer is shown in place.
import '../design/components.css';
import { h } from '../lib/dom.js';

const video = document.getElementById('camera') as HTMLVideoElement;
const button = document.getElementById('capture') as HTMLButtonElement;
const result = document.getElementById('result') as HTMLElement;
const organizationName = document.body.dataset.organization ?? '';

navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480, facingMode: 'user' }, audio: false }).then(
  (stream) => {
    video.srcObject = stream;
    video.onloadeddata = () => {
      button.disabled = false;
    };
  },
  () => {
    result.textContent = 'The camera could not be opened: allow camera access and reload this page.';
  },
);

button.addEventListener('click', async () => {
  button.disabled = true;
  result.textContent = 'Checking your selfie…';
  const canvas = h('canvas', { width: video.videoWidth, height: video.videoHeight });
  canvas.getContext('2d')!.drawImage(video, 0, 0);
  try {
    const response = await fetch(location.pathname + '/selfie', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ selfie: canvas.toDataURL('image/jpeg', 0.92) }),
    });
    const answer = await response.json();
    if (answer.success) {
      result.textContent = 'Done: you are now an active member of ' + organizationName + '.';
      for (const track of (video.srcObject as MediaStream).getTracks()) track.stop();
      button.hidden = true;
      return;
    }
    const message = String(answer.error.message);
    result.textContent = message + (message.endsWith('.') ? '' : '.') + ' Try again.';
  } catch {
    result.textContent = 'Something went wrong. Try again.';
  }
  button.disabled = false;
});
