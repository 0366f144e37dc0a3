import { createRoot } from 'react-dom/client';
import { App } from './app';
import './styles.css';
import './changes.css';
import './traffic.css';

createRoot(document.getElementById('root')!).render(<App />);
