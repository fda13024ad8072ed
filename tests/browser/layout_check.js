// Run in the page by tests/browser/layout_check.py: every cut, ellipsised or overlapping text box, as short dicts.
// `mobile`: a phone or tablet (touch): tables may scroll sideways inside their own box, tap targets must be 44 px.
({sliver, mobile}) => {
  const defects = [];
  const words = (el) => (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 70);
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return false;
    if (el.closest('details:not([open])')) return false;  // inside a closed expander: not on the screen
    for (let node = el; node && node.nodeType === 1; node = node.parentElement || node.getRootNode().host) {
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
    }
    return true;
  };
  const column = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!column) return [{kind: 'missing', what: 'no main column'}];
  for (const error of document.querySelectorAll('[data-testid="stException"]'))
    defects.push({kind: 'exception', what: words(error)});  // a page that failed has nothing left to check
  // components (the live charts) draw inside shadow roots of their own: look in those too
  const roots = [column, ...[...column.querySelectorAll('*')].filter((el) => el.shadowRoot).map((el) => el.shadowRoot)];
  const deep = (selector) => roots.flatMap((root) => [...root.querySelectorAll(selector)]);
  const box = column.getBoundingClientRect(), pad = getComputedStyle(column);
  const left = box.left + parseFloat(pad.paddingLeft), right = box.right - parseFloat(pad.paddingRight);

  // 1. cut: a formula or table that needs more width than it has, or anything sticking out of the column
  for (const el of column.querySelectorAll('.katex-display')) {
    if (shown(el) && el.scrollWidth > el.clientWidth + sliver)
      defects.push({kind: 'cut', what: 'formula ' + words(el), need: el.scrollWidth, have: el.clientWidth});
  }
  const tables = '.dvn-scroller, .posenc-table, [data-testid="stMarkdownContainer"] table:not(.posenc-table table)';
  for (const outer of column.querySelectorAll(tables)) {
    // ui/table.py's table scrolls sideways inside a div of its own (.posenc-table): the box, and every scrolling box
    // in it, must fit
    const boxes = [outer, ...[...outer.querySelectorAll('*')].filter((inner) => getComputedStyle(inner).overflowX !== 'visible')];
    const scroller = boxes.find((b) => shown(b) && b.scrollWidth > b.clientWidth + sliver);
    // on a touch screen a wide table is fine when it scrolls sideways inside its own box (the page does not)
    const scrolls = (b) => ['auto', 'scroll'].includes(getComputedStyle(b).overflowX);
    if (scroller && mobile && scrolls(scroller)) continue;
    if (scroller)
      defects.push({kind: 'cut', what: 'table ' + words(outer.closest('[data-testid]') || outer).slice(0, 40),
                    need: scroller.scrollWidth, have: scroller.clientWidth});
  }
  for (const el of column.querySelectorAll('[data-testid="stElementContainer"]')) {  // an element taller than its box
    if (shown(el) && el.scrollHeight > el.clientHeight + sliver && getComputedStyle(el).overflowY !== 'visible')
      defects.push({kind: 'cut', what: 'element height ' + words(el).slice(0, 40), need: el.scrollHeight, have: el.clientHeight});
  }
  for (const el of column.querySelectorAll('[data-testid="stElementContainer"] > *')) {
    const r = el.getBoundingClientRect();
    if (shown(el) && (r.right > right + 1 || r.left < left - 1))
      defects.push({kind: 'cut', what: 'element ' + words(el), by: Math.round(Math.max(r.right - right, left - r.left)),
                    testid: el.getAttribute('data-testid')});
  }

  // 2. ellipsis: a label whose text does not fit and is shortened with "…"
  const app = document.querySelector('[data-testid="stApp"]') || document.body;
  for (const el of app.querySelectorAll('p, span, label, div, a, th, td')) {
    if (el.clientWidth === 0) continue;
    const style = getComputedStyle(el);
    if (style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1 && shown(el))
      defects.push({kind: 'ellipsis', what: words(el)});
  }

  // 3. a figure's own text (static/figure.js; Plotly's, where a page still draws one): boxes that overlap, and
  // text past the figure's edge
  for (const chart of [...column.querySelectorAll('.js-plotly-plot'), ...deep('.figure-root .plot')]) {
    if (!shown(chart)) continue;
    const frame = chart.getBoundingClientRect();
    const name = words(chart.querySelector('.gtitle, svg .title') || chart).slice(0, 40);
    const texts = [...chart.querySelectorAll('text')].filter((t) => t.textContent.trim() && shown(t));
    // a turned label (Plotly turns crowded tick labels by 30° or 90°): its angle and its line height
    const turn = (t) => {
      const found = /rotate\((-?[\d.]+)/.exec((t.getAttribute('transform') || '') + (t.parentElement.getAttribute('transform') || ''));
      return found ? Number(found[1]) : 0;
    };
    const boxes = texts.map((t) => ({r: t.getBoundingClientRect(), s: t.textContent.trim().slice(0, 30),
                                     kind: t.getAttribute('class') || t.parentElement.getAttribute('class') || 'text',
                                     angle: turn(t), size: parseFloat(getComputedStyle(t).fontSize) || 12}));
    for (const b of boxes) {
      if (b.r.left < frame.left - 1 || b.r.right > frame.right + 1 || b.r.top < frame.top - 1 || b.r.bottom > frame.bottom + 1)
        defects.push({kind: 'outside', chart: name, what: b.s, text: b.kind});
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        const angle = boxes[i].angle;
        if (angle !== 0 && angle === boxes[j].angle && boxes[i].kind === boxes[j].kind) {
          // two labels turned alike (one axis): their boxes overlap, the text does not, while the gap between
          // their lines, across the text, is at least one line of text
          const along = Math.abs((a.left + a.right) / 2 - (b.left + b.right) / 2);
          const across = Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2);
          const gap = Math.abs(along * Math.sin(angle * Math.PI / 180)) + Math.abs(across * Math.cos(angle * Math.PI / 180));
          if (gap >= 0.9 * boxes[i].size) continue;
        }
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > sliver && h > sliver)
          defects.push({kind: 'overlap', chart: name, what: boxes[i].s + ' / ' + boxes[j].s,
                        text: boxes[i].kind + ' / ' + boxes[j].kind});
      }
    }
  }
  // 4. a subplot's text (tick labels, axis titles, its traces' and annotations' words) on another subplot's plot
  const cross = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > sliver &&
                          Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > sliver;
  const inside = (r, area) => {
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    return x >= area.left && x <= area.right && y >= area.top && y <= area.bottom;
  };
  for (const chart of column.querySelectorAll('.js-plotly-plot')) {
    const plots = chart._fullLayout && chart._fullLayout._plots;
    const svg = chart.querySelector('.main-svg');
    if (!plots || !svg || !shown(chart) || Object.keys(plots).length < 2) continue;
    const frame = svg.getBoundingClientRect();
    const name = words(chart.querySelector('.gtitle') || chart).slice(0, 40);
    const areas = Object.entries(plots).map(([id, plot]) => ({
      id, x: plot.xaxis._id, y: plot.yaxis._id,
      left: frame.left + plot.xaxis._offset, right: frame.left + plot.xaxis._offset + plot.xaxis._length,
      top: frame.top + plot.yaxis._offset, bottom: frame.top + plot.yaxis._offset + plot.yaxis._length,
    }));
    const notes = chart._fullLayout.annotations || [];
    for (const t of chart.querySelectorAll('text')) {
      if (!t.textContent.trim() || !shown(t)) continue;
      const r = t.getBoundingClientRect();
      let own;  // the plot areas this text belongs to
      const subplot = t.closest('g.subplot');
      const title = t.closest('[class^="g-"][class$="title"]');
      const note = t.closest('.annotation');
      if (subplot) {
        const id = [...subplot.classList].find((c) => /^x\d*y\d*$/.test(c));
        const tick = t.closest('.xtick, .ytick');
        const axis = tick ? plots[id] && plots[id][tick.matches('.xtick') ? 'xaxis' : 'yaxis']._id : null;
        own = areas.filter((a) => (axis ? a.x === axis || a.y === axis : a.id === id));
      } else if (title && /^g-[xy]\d*title$/.test(title.getAttribute('class'))) {
        const axis = title.getAttribute('class').slice(2, -5);
        own = areas.filter((a) => a.x === axis || a.y === axis);
      } else if (note && notes[Number(note.getAttribute('data-index'))]) {
        const {xref, yref} = notes[Number(note.getAttribute('data-index'))];
        const axes = [xref, yref].filter((ref) => ref && ref !== 'paper' && !ref.endsWith('domain') || false);
        const domains = [xref, yref].filter((ref) => ref && ref.endsWith(' domain')).map((ref) => ref.split(' ')[0]);
        own = areas.filter((a) => [...axes, ...domains].some((ref) => a.x === ref || a.y === ref) || inside(r, a));
      } else {
        own = areas.filter((a) => inside(r, a));  // a legend or colour bar may sit in the plot it is nearest to
      }
      for (const area of areas) {
        if (!own.includes(area) && cross(r, area))
          defects.push({kind: 'intrudes', chart: name, what: t.textContent.trim().slice(0, 30), on: area.id});
      }
    }
  }

  // 5. the live charts' own words: SVG text over SVG text or past the figure, and controls that do not fit
  for (const live of deep('.live')) {
    if (!shown(live)) continue;
    const title = words(live.querySelector('svg .title') || live).slice(0, 40);
    for (const figure of live.querySelectorAll('.figure')) {
      const edge = figure.getBoundingClientRect();
      const boxes = [...figure.querySelectorAll('svg text')].filter((t) => t.textContent.trim() && shown(t))
        .map((t) => ({r: t.getBoundingClientRect(), s: t.textContent.trim().slice(0, 30)}));
      for (const b of boxes) {
        if (b.r.left < edge.left - 1 || b.r.right > edge.right + 1)
          defects.push({kind: 'outside', chart: title, what: b.s, text: 'live'});
      }
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          if (cross(boxes[i].r, boxes[j].r))
            defects.push({kind: 'overlap', chart: title, what: boxes[i].s + ' / ' + boxes[j].s, text: 'live'});
        }
      }
    }
    const edge = live.getBoundingClientRect();
    for (const label of live.querySelectorAll('.controls label')) {
      const l = label.getBoundingClientRect();
      for (const part of label.querySelectorAll('input, output, button')) {
        const r = part.getBoundingClientRect();
        if (r.right > Math.min(l.right, edge.right, right) + 1 || r.left < Math.max(l.left, edge.left) - 1 ||
            part.scrollWidth > part.clientWidth + sliver)
          defects.push({kind: 'cut', what: 'live control ' + words(label).slice(0, 40), part: part.tagName.toLowerCase()});
        if (mobile && part.matches('input, button') && (r.height < 44 || r.width < 44))
          defects.push({kind: 'small', what: 'tap target ' + words(label).slice(0, 40), part: part.tagName.toLowerCase(),
                        size: Math.round(r.width) + 'x' + Math.round(r.height)});
      }
      if (label.scrollWidth > label.clientWidth + sliver)
        defects.push({kind: 'cut', what: 'live control ' + words(label).slice(0, 40), part: 'label'});
    }
  }

  // 6. a phone or tablet: nothing wider than the screen, no squeezed panels, no box that hides what it holds,
  // every button and every radio or checkbox option of the page (checkpoints, class mode) 44 px high at least
  if (mobile) {
    const taps = document.querySelectorAll('[data-testid="stMain"] :is([data-testid="stButton"] button, ' +
      '[data-testid="stFormSubmitButton"] button, [data-testid="stRadio"] label, [data-testid="stCheckbox"] label)');
    for (const tap of taps) {
      const r = tap.getBoundingClientRect();
      if (shown(tap) && r.height < 44)
        defects.push({kind: 'small', what: 'tap target ' + words(tap).slice(0, 40), size: Math.round(r.width) + 'x' + Math.round(r.height)});
    }
    const page = document.scrollingElement || document.documentElement;
    if (page.scrollWidth > window.innerWidth + 1)
      defects.push({kind: 'cut', what: 'the page scrolls sideways', need: page.scrollWidth, have: window.innerWidth});
    for (const chart of [...column.querySelectorAll('.js-plotly-plot'), ...deep('.live .figure'), ...deep('.figure-root')]) {
      const r = chart.getBoundingClientRect();
      if (shown(chart) && r.width < Math.min(300, right - left - 2 * sliver))
        defects.push({kind: 'squeezed', what: 'chart ' + words(chart.querySelector('.gtitle, svg .title') || chart).slice(0, 40),
                      width: Math.round(r.width)});
    }
    const columns = [...column.querySelectorAll('[data-testid="stColumn"]')].filter(shown);
    for (let i = 0; i < columns.length; i++) {
      for (let j = i + 1; j < columns.length; j++) {
        if (cross(columns[i].getBoundingClientRect(), columns[j].getBoundingClientRect()))
          defects.push({kind: 'overlap', what: 'panels ' + words(columns[i]).slice(0, 30) + ' / ' + words(columns[j]).slice(0, 30)});
      }
    }
    for (const el of column.querySelectorAll('[data-testid="stMarkdownContainer"] *, [data-testid="stExpander"] *')) {
      const style = getComputedStyle(el);
      if (!['hidden', 'clip'].includes(style.overflowX) || el.closest('.katex')) continue;
      if (shown(el) && el.scrollWidth > el.clientWidth + sliver && el.clientWidth > 0)
        defects.push({kind: 'cut', what: 'box ' + words(el).slice(0, 40), need: el.scrollWidth, have: el.clientWidth});
    }
  }

  // 7. Korean breaks between words (`word-break: keep-all`), never inside one: every Korean text of a Korean page,
  // and on another page what is marked Korean (lang="ko": the glossary's Korean column)
  const textual = 'h1, h2, h3, p, li, label, td, th';
  const korean = document.documentElement.lang === 'ko' || /[\uac00-\ud7a3]/.test(words(column.querySelector('h1') || column))
    ? [...app.querySelectorAll(textual)]
    : [...app.querySelectorAll('[lang="ko"]')].flatMap((el) => [el, ...el.querySelectorAll(textual)]);
  for (const el of korean) {
    if (/[\uac00-\ud7a3]/.test(el.textContent) && shown(el) && getComputedStyle(el).wordBreak !== 'keep-all') {
      defects.push({kind: 'breaks inside words', what: words(el).slice(0, 40)});
      break;  // one is enough: it is one style for the whole page
    }
  }
  return defects;
}
