/**
 * The group page's one script: its map of the projects (the section the server wrote, src/presentation/html.ts), from
 * the page's map chunk once it scrolls into view. Nothing else on the group page needs a script. docs/map.md.
 */
import type { GroupMapData } from './map/types.ts';

const section = document.getElementById('group-map');
const frame = document.getElementById('map');
if (section && frame && 'IntersectionObserver' in window) {
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      const data = JSON.parse(section.dataset.map ?? '{}') as GroupMapData;
      void import('./map/map-view.ts').then(({ showGroupMap }) => showGroupMap(frame, data, data.points));
    },
    { rootMargin: '200px' },
  );
  observer.observe(section);
}
