/** Renderer entry: composes the stores with the API the preload exposed, then renders. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createDisplaysStore } from './displays-store';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

const displays = createDisplaysStore(window.mnemo);

createRoot(root).render(
  <StrictMode>
    <App displays={displays} />
  </StrictMode>,
);
