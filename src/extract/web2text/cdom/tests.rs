use super::fills::INTRODUCTION_WORDS;
use super::*;

#[test]
fn leaves_share_a_path_id_exactly_when_they_share_the_class_path() {
    let c = cdom(
        "<body><div class=a><p class=x>one <b>two</b></p><ul><li>three</li><li class=y>four <i>five</i></li><li>six</li></ul></div>\
         <p>seven</p><div class=a><p class=x>eight <b>nine</b></p></div><div class=a><p class=x><b>ten</b></p><p>eleven</p></div></body>",
    );
    let walked: Vec<String> = c.leaves.iter().map(|&l| c.class_path(l)).collect();
    let ids = c.leaf_class_path_ids();
    assert_eq!(ids.len(), walked.len());
    let mut shared = 0;
    for i in 0..ids.len() {
        for j in 0..ids.len() {
            assert_eq!(ids[i] == ids[j], walked[i] == walked[j], "{} / {}", walked[i], walked[j]);
            shared += usize::from(i != j && ids[i] == ids[j]);
        }
    }
    assert!(shared > 0, "the page repeats a path: {walked:?}");
}

fn cdom(html: &str) -> Cdom {
    Cdom::build(&Dom::parse_with(html, crate::dom::DomLimits { max_elements: usize::MAX, deadline: None }, &crate::dom::FOR_WEB2TEXT).expect("no limits"))
}

#[test]
fn chinese_characters_are_words_and_full_stops_end_sentences() {
    let s = TextStats::of("委员会星期二开会。决定增加开放时间。");
    assert_eq!((s.words, s.word_chars, s.sentences, s.punctuation), (16, 16, 2, 2));
    assert!(s.ends_with_punctuation);
    assert_eq!(words("東京の天気 is fine。").collect::<Vec<_>>(), ["東", "京", "の", "天", "気", "is", "fine"]);
    // Scripts without case start sentences with any letter.
    assert_eq!(TextStats::of("اجتمعت اللجنة. ناقشت الميزانية؟ وافقت").sentences, 3);
    assert_eq!(TextStats::of("समिति मिली। बजट पर चर्चा हुई।").sentences, 2);
    assert_eq!(TextStats::of("it met. then it left.").sentences, 1);
}

#[test]
fn a_formula_is_its_rendered_text_not_its_source() {
    // MediaWiki and KaTeX put the TeX in an `annotation`, which no browser shows.
    let html = "<body><p>If the transpose of <math><semantics><mi>A</mi>\
                <annotation encoding=\"application/x-tex\">{\\displaystyle A}</annotation>\
                <annotation-xml encoding=\"MathML-Content\"><ci>A</ci></annotation-xml></semantics></math> is taken</p></body>";
    let page = cdom(html);
    let text: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(text.join(" ").split_whitespace().collect::<Vec<_>>(), ["If", "the", "transpose", "of", "A", "is", "taken"]);
}

#[test]
fn ruby_text_is_its_base_text_without_the_readings() {
    // Furigana as NHK's easy Japanese news writes it, and pinyin with fallback parentheses.
    let html = "<body><p><ruby>子<rt>こ</rt></ruby>どもへの<a href=x><ruby><span>虐待</span><rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby></a>をなくす</p>\
                <p>我<ruby>爱<rt>ài</rt></ruby>你</p><p>たたいたり<a><ruby><span>蹴</span><rt>け</rt></ruby><span>っ</span></a>たり</p></body>";
    let page = cdom(html);
    let mut content = vec![true; page.leaves.len()];
    page.drop_ruby_readings(&mut content);
    assert_eq!(page.text_of(&content), "子どもへの虐待をなくす\n我爱你\nたたいたり蹴ったり");
    assert_eq!(content.iter().filter(|&&c| !c).count(), 6, "four readings and two parentheses, blocks of their own");
}

#[test]
fn side_by_side_items_are_spaced_apart_but_not_inside_chinese_or_japanese_text() {
    let page = cdom("<body><p><span>2026</span><span>1h 54m</span></p><p><span>東京</span><span>都</span>に<b>住む</b></p></body>");
    assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "2026 1h 54m\n東京都に住む");
}

#[test]
fn the_combiner_reads_noscript_and_skips_the_rest_alike() {
    let html = "<body><p>Shown to everyone here.</p><noscript><p>Thread text for crawlers.</p></noscript><script>var x;</script>\
                <p>If <math><semantics><mi>A</mi><annotation>{A}</annotation></semantics></math> holds</p></body>";
    let dom = Dom::parse_with(html, crate::dom::DomLimits { max_elements: usize::MAX, deadline: None }, &crate::dom::FOR_WEB2TEXT).expect("no limits");
    let words = |skipped: &TagList| {
        let page = Cdom::build_skipping(&dom, skipped);
        page.leaves.iter().map(|&l| page.nodes[l].text.clone()).collect::<Vec<_>>().join(" ").split_whitespace().map(str::to_string).collect::<Vec<_>>()
    };
    assert_eq!(words(&SKIPPED), ["Shown", "to", "everyone", "here.", "If", "A", "holds"]);
    assert_eq!(words(&SKIPPED_BUT_NOSCRIPT), ["Shown", "to", "everyone", "here.", "Thread", "text", "for", "crawlers.", "If", "A", "holds"]);
}

#[test]
fn a_page_in_another_language_counts_the_stopwords_of_that_language() {
    let french = "<body><p>Le comité de la ville s'est réuni mardi pour discuter du nouveau budget des bibliothèques et des parcs.</p><p>Accueil</p></body>";
    let page = cdom(french);
    assert_eq!(page.language().as_deref(), Some("fr"));
    let paragraph = &page.nodes[page.leaves[0]].stats;
    // le, de, la, s, est, pour, du, des, et, des: all French stopwords, none English.
    assert!(paragraph.stopwords >= 8, "{paragraph:?}");
    assert_eq!(TextStats::of(&page.nodes[page.leaves[0]].text).stopwords, 0, "English list");
    let root = page.root.expect("a root");
    assert_eq!(page.nodes[root].stats.stopwords, page.leaves.iter().map(|&l| page.nodes[l].stats.stopwords).sum::<usize>());
    // An English page keeps Web2Text's list.
    let english = cdom("<body><p>The committee of the city met on Tuesday to discuss the new budget for its libraries and parks.</p></body>");
    assert_eq!(english.nodes[english.leaves[0]].stats, TextStats::of(&english.nodes[english.leaves[0]].text));
}

#[test]
fn the_text_has_the_pages_language_when_its_longest_blocks_are_kept() {
    // A paragraph over the detector's kilobyte: the page's sample is that block alone.
    let french = "Le comité de la ville s'est réuni mardi pour discuter du nouveau budget des bibliothèques et des parcs. ".repeat(12);
    let page = cdom(&format!("<body><p>{french}</p><p>Read in English</p><p>Accueil</p></body>"));
    assert_eq!(page.language_of(&[true, false, false]).map(|(code, _)| code).as_deref(), Some("fr"));
    assert_eq!(page.language_of(&[true, true, true]).map(|(code, _)| code).as_deref(), Some("fr"));
    // The sampled block left out: the text's language is read from the text.
    assert_eq!(page.language_of(&[false, true, true]), None);
    // So it is where a sampled block is code, which the detector misreads.
    let sentence = "Le comité de la ville s'est réuni mardi pour discuter du nouveau budget des bibliothèques.";
    let code = cdom(&format!("<body><pre>function budget(city) {{ return city.parks.map(p => p.cost); }}</pre><p>{sentence}</p></body>"));
    assert_eq!(code.language().as_deref(), Some("fr"));
    assert_eq!(code.language_of(&[true, true]), None);
}

/// The paper's Figure 2, extended: single-child chains merge (div > ul > li > a
/// collapses into one leaf chain), empty and content-less nodes go.
#[test]
fn single_child_chains_merge() {
    let page = cdom(
        "<body><div><ul><li><a href='/a'>Home</a></li><li><span><b>News</b></span></li></ul></div>\
         <p>  </p><img src=x><div><p>First paragraph of the story.</p><p>Second <i>one</i>.</p></div>\
         <script>var x = 1;</script></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts, ["Home", "News", "First paragraph of the story.", "Second", "one", "."]);
    let tags = |i: usize| page.nodes[page.leaves[i]].tag_path();
    assert_eq!(tags(0), "li>a>#text");
    assert_eq!(tags(1), "li>span>b>#text");
    assert_eq!(tags(2), "p>#text");
    assert_eq!(tags(4), "i>#text");
    // The two list items share the <ul>, merged with its single-child <div>.
    let parent = |i: usize| page.nodes[page.leaves[i]].parent.map(|p| page.nodes[p].tag_path());
    assert_eq!(parent(0).as_deref(), Some("div>ul"));
    assert_eq!(parent(0), parent(1));
    assert_eq!(parent(3).as_deref(), Some("p"));
    // body has two kept children (the ul and the story's div): it is the root.
    let root = page.root.unwrap();
    assert_eq!(page.nodes[root].tag_path(), "body");
    assert_eq!(page.nodes[root].children.len(), 2);
    // Line breaks: between list items and paragraphs, not inside a paragraph.
    let breaks: Vec<bool> = page.leaves.iter().map(|&l| page.nodes[l].break_before).collect();
    assert_eq!(breaks, [true, true, true, true, false, false]);
    // Link characters: "Home" sits in an <a>; the root sums them.
    assert_eq!(page.nodes[page.leaves[0]].stats.link_chars, 4);
    assert_eq!(page.nodes[root].stats.link_chars, 4);
    // Tree distances: siblings are 2 apart; "First ..." and "Second" 3 (up to the div).
    assert_eq!(page.common_ancestor(page.leaves[0], page.leaves[1]).map(|x| x.1), Some(2));
    assert_eq!(page.common_ancestor(page.leaves[2], page.leaves[3]).map(|x| x.1), Some(3));
}

/// Phrasing markup inside a word or a CJK sentence adds no space; whitespace, a
/// non-phrasing element or a dropped block between two kept blocks does.
#[test]
fn text_keeps_words_that_markup_splits() {
    let page = cdom(
        "<body><p>un<em>believ</em>able, <a href=x>link</a>s and <b>Note</b>: fine.</p>\
         <p><span>一波波<span>接續性</span>低溫</span></p>\
         <table><tr><td>cell</td><td>next</td></tr></table>\
         <p>keep<span>this</span> <i>and</i>\n<u>this</u></p></body>",
    );
    let all = vec![true; page.leaves.len()];
    assert_eq!(page.text_of(&all), "unbelievable, links and Note: fine.\n一波波接續性低溫\ncell\nnext\nkeepthis and this");
    // A block left out between two kept ones separates them.
    let mut some = all.clone();
    let believ = page.leaves.iter().position(|&l| page.nodes[l].text == "believ").expect("a block of its own");
    some[believ] = false;
    assert!(page.text_of(&some).starts_with("un able, links"), "{}", page.text_of(&some));
    // Text touching a span is one word; a non-phrasing element that is not a block
    // (here an <object>'s fallback text), and two phrasing elements side by side,
    // separate.
    let page = cdom("<body><div>x<span>y</span><object>obj</object><span>z</span><span>2026</span><b><i>1h</i></b></div></body>");
    assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "xy obj z 2026 1h");
    // A sibling whose text closes the word before goes on it: a rating split over two
    // spans, a sentence's full stop after a link.
    let page = cdom("<body><p>rated <strong>6</strong><strong>.5/</strong>10, by <a href=x>them</a><span>.</span> <b>Yes</b><i>!</i></p></body>");
    assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "rated 6.5/10, by them. Yes!");
    // In code, touching siblings are the page's characters as they are: highlighted code
    // is made of them. The same spans outside code are separate items.
    let page = cdom(
        "<body><pre><code><span>curl</span> -u <span>\"</span><span>sk_test</span><span>abc</span><span>:</span></code></pre>             <p>use <code><span>foo</span><span>(</span><span>x</span><span>)</span></code> or <span>sk_test</span><span>abc</span></p></body>",
    );
    assert_eq!(page.text_of(&vec![true; page.leaves.len()]), "curl -u \"sk_testabc:\nuse foo(x) or sk_test abc");
}

#[test]
fn a_gap_inside_a_kept_line_is_filled_and_a_gap_across_lines_is_not() {
    let page = cdom("<body><p>Read by <a href=/a>Class Central</a> and <b>others</b> daily.</p><p>Menu</p><p>Second line.</p></body>");
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts, ["Read by", "Class Central", "and", "others", "daily.", "Menu", "Second line."]);
    let mut content = vec![true, false, false, false, true, false, true];
    page.fill_line_gaps(&mut content);
    assert_eq!(content, [true, true, true, true, true, false, true]);
    // The line's end is not a gap: a dropped tail stays dropped.
    let mut content = vec![true, true, false, false, false, false, false];
    page.fill_line_gaps(&mut content);
    assert_eq!(content, [true, true, false, false, false, false, false]);
}

#[test]
fn a_code_block_with_kept_words_is_kept_whole() {
    let page = cdom(
        "<body><p>Run it:</p><pre><span>SELECT</span> <span>avg</span>(n)\n<span>FROM</span> series;</pre><p>Menu</p>\
         <pre><span>other</span> <span>block</span></pre></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts, ["Run it:", "SELECT", "avg", "(n)", "FROM", "series;", "Menu", "other", "block"]);
    // The trees kept the second line of the first block: the whole block, its
    // punctuation included, is kept; the other block, with nothing kept, stays out.
    let mut content = vec![true, false, false, false, true, true, false, false, false];
    page.fill_code_blocks(&mut content, 0.05);
    assert_eq!(content, [true, true, true, true, true, true, false, false, false]);
    // Under the share kept, nothing is added.
    let mut content = vec![true, false, false, false, false, true, false, false, false];
    page.fill_code_blocks(&mut content, 0.5);
    assert_eq!(content, [true, false, false, false, false, true, false, false, false]);
}

#[test]
fn the_full_stop_after_a_kept_link_is_kept_but_not_a_separator_or_the_next_line() {
    let page = cdom("<body><p>Replaced by <a href=/a>paid ones</a>.</p><p>.</p><p><a href=/h>Home</a> | <a href=/n>News</a></p></body>");
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts, ["Replaced by", "paid ones", ".", ".", "Home", "|", "News"]);
    let mut content = vec![true, true, false, false, true, false, false];
    page.fill_line_gaps(&mut content);
    assert_eq!(content, [true, true, true, false, true, false, false]);
    assert_eq!(page.text_of(&content), "Replaced by paid ones.\nHome");
    // Not after a dropped block.
    let mut content = vec![true, false, false, false, false, false, false];
    page.fill_line_gaps(&mut content);
    assert_eq!(content, [true, false, false, false, false, false, false]);
}

#[test]
fn a_data_table_mostly_kept_is_kept_whole_with_the_links_of_its_rows_but_not_a_layout_table() {
    let page = cdom(
        "<body><table><tr><td>Model name and its long description</td><td>Price</td></tr>\
         <tr><td>The first model of the series, for daily use</td><td>12</td></tr>\
         <tr><td><a href=/m>Second model</a></td><td>Yes</td></tr>\
         <tr><td>Third model, with a name that is no link</td><td><a href=/b>Buy</a></td></tr>\
         <tr><td>Fourth model, with a name that is no link</td><td><a href=/b>Buy</a></td></tr>\
         <tr><td><a href=/p>Previous</a></td><td>|</td><td><a href=/n>Next</a></td></tr></table><p>After the table.</p></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Model name and its long description",
            "Price",
            "The first model of the series, for daily use",
            "12",
            "Second model",
            "Yes",
            "Third model, with a name that is no link",
            "Buy",
            "Fourth model, with a name that is no link",
            "Buy",
            "Previous",
            "|",
            "Next",
            "After the table."
        ]
    );
    let mut content = vec![true, false, true, false, false, false, true, false, false, false, false, false, false, false];
    page.fill_data_tables(&mut content, 0.5, 50);
    // Every cell that is no link; the link of a row with kept words, unless the table
    // repeats it (an action); not a row of links and separators (a menu).
    assert_eq!(content, [true, true, true, true, true, true, true, false, true, false, false, true, false, false]);
    // Under the share kept, nothing is added.
    let mut content = vec![false, true, false, false, false, false, false, false, false, false, false, false, false, true];
    page.fill_data_tables(&mut content, 0.5, 50);
    assert_eq!(content, [false, true, false, false, false, false, false, false, false, false, false, false, false, true]);
    // A cell over the word limit makes it a layout table.
    let mut content = vec![true, false, true, false, false, false, false, false, false, false, false, false, false, false];
    page.fill_data_tables(&mut content, 0.5, 5);
    assert_eq!(content, [true, false, true, false, false, false, false, false, false, false, false, false, false, false]);
    // A table holding a table lays out the page.
    let page = cdom(
        "<body><table><tr><td>Kept words of the outer cell</td><td>Menu</td></tr><tr><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></table></body>",
    );
    let mut content = vec![true, false, false, false];
    page.fill_data_tables(&mut content, 0.5, 50);
    assert_eq!(content, [true, false, false, false]);
}

#[test]
fn the_links_of_a_table_of_records_are_its_values_but_not_those_of_a_navigation_box() {
    // An infobox: header cells label values, some of them links; a link the table
    // repeats is still an action.
    let page = cdom(
        "<body><table><tr><th>Capital</th><td><a href=/w>Wellington</a> 41 S 174 E</td></tr>\
         <tr><th>Governor-General</th><td><a href=/p>Patsy Reddy</a></td></tr>\
         <tr><th>Population in the census of the year</th><td>4,699,755 people counted</td></tr>\
         <tr><th><a href=/e>Edit</a></th><td><a href=/e2>Edit</a></td></tr></table>\
         <table><tr><th><a href=/r>Regions</a></th><td><a href=/n>Northland</a> <a href=/a>Auckland</a></td></tr>\
         <tr><th><a href=/c>Cities</a></th><td><a href=/h>Hamilton</a> <a href=/t>Tauranga</a></td></tr>\
         <tr><td colspan=2>More</td></tr></table></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Capital",
            "Wellington",
            "41 S 174 E",
            "Governor-General",
            "Patsy Reddy",
            "Population in the census of the year",
            "4,699,755 people counted",
            "Edit",
            "Edit",
            "Regions",
            "Northland",
            "Auckland",
            "Cities",
            "Hamilton",
            "Tauranga",
            "More"
        ]
    );
    // The navigation box below it (links 80% of its characters) keeps its links out.
    let mut content = vec![true, false, false, false, false, true, true, false, false, false, false, false, false, false, false, true];
    page.fill_data_tables(&mut content, 0.1, 50);
    assert_eq!(content, [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, true]);
    // Without header cells the same table is not one of records: its rows of links
    // only stay out.
    let page = cdom(
        "<body><table><tr><td>Capital</td><td><a href=/w>Wellington</a></td></tr>\
         <tr><td>&bull;</td><td><a href=/p>Patsy Reddy</a></td></tr>\
         <tr><td>Population in the census of the year</td><td>4,699,755 people counted</td></tr></table></body>",
    );
    let mut content = vec![true, false, false, false, true, true];
    page.fill_data_tables(&mut content, 0.1, 50);
    assert_eq!(content, [true, true, true, false, true, true]);
}

#[test]
fn links_beside_kept_words_in_one_cell_stay_out() {
    // A footer laid out in a table: its links share the cell of its notice.
    let page = cdom(
        "<body><table><tr><td><a href=/a>About</a> | <a href=/c>Contact</a><br>\
         This site is run by the office of public affairs for everyone</td></tr></table></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts, ["About", "|", "Contact", "This site is run by the office of public affairs for everyone"]);
    let mut content = vec![false, false, false, true];
    page.fill_data_tables(&mut content, 0.5, 50);
    assert_eq!(content, [false, true, false, true]);
}

#[test]
fn a_contents_list_of_kept_headings_is_left_out() {
    let page = cdom(
        "<body><ul><li><a href=#a>Getting started</a></li><li><a href=#b>Usage</a></li></ul>\
         <h2 id=a>Getting started ¶</h2><p>Install it first.</p><h2 id=b>Usage</h2><p>Run it.</p>\
         <ul><li>Getting started</li><li>Something else</li></ul></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts, ["Getting started", "Usage", "Getting started ¶", "Install it first.", "Usage", "Run it.", "Getting started", "Something else"]);
    let mut content = vec![true; 8];
    page.drop_contents_lists(&page.leaf_headings(), &mut content);
    // The contents list goes; a list naming one heading among other items stays.
    assert_eq!(content, [false, false, true, true, true, true, true, true]);
    // Where a heading it names is not kept, the list is the only copy of its words.
    let mut content = vec![true, true, true, true, false, true, true, true];
    page.drop_contents_lists(&page.leaf_headings(), &mut content);
    assert_eq!(content, [true, true, true, true, false, true, true, true]);
}

#[test]
fn a_heading_dropped_between_kept_text_is_kept_but_not_one_at_its_edge() {
    let page = cdom(
        "<body><h1>The history of neon signs</h1><p>Neon came to Paris in 1910.</p>\
         <h2>Into the cities</h2><h3>Las Vegas</h3><p>The Strip lit up in the fifties.</p>\
         <h2>Related stories</h2><ul><li><a href=/a>Ten signs of the times</a></li></ul></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "The history of neon signs",
            "Neon came to Paris in 1910.",
            "Into the cities",
            "Las Vegas",
            "The Strip lit up in the fifties.",
            "Related stories",
            "Ten signs of the times"
        ]
    );
    // The trees kept the paragraphs only: the h2 between them comes back (its section
    // reaches past its h3 to the paragraph), not the h3 under it, whose block before is
    // that dropped h2; the title before the first kept block and the heading over the
    // dropped links stay out.
    let mut content = vec![false, true, false, false, true, false, false];
    page.fill_section_headings(&page.leaf_headings(), &mut content);
    assert_eq!(content, [false, true, true, false, true, false, false]);
    // With the h2 kept, the h3 comes back too.
    let mut content = vec![false, true, true, false, true, false, false];
    page.fill_section_headings(&page.leaf_headings(), &mut content);
    assert_eq!(content, [false, true, true, true, true, false, false]);
    // A section whose first block is dropped keeps its heading out.
    let mut content = vec![false, true, false, false, false, false, true];
    page.fill_section_headings(&page.leaf_headings(), &mut content);
    assert_eq!(content, [false, true, false, false, false, false, true]);
}

#[test]
fn the_scripts_json_is_left_out_but_not_a_json_example_or_a_bracketed_sentence() {
    let state = r#"{"painterId":"AsinGridWidget","asins":["B0CXGXT6W8","B0CYNFWD2R"],"offset":0,"limit":20}"#;
    let example = r#"{ "bindings": [ { "authLevel": "function", "type": "httpTrigger" } ] }"#;
    let page = cdom(&format!(
        "<body><div class=hidden>{state}</div><p>[Update: the grid now loads twenty headphones a page, as it did before.]</p>\
         <pre>{example}</pre><p>The binding file above is {{ what the host reads }}.</p></body>"
    ));
    assert_eq!(page.leaves.len(), 4);
    let mut content = vec![true; 4];
    page.drop_script_data(&mut content);
    assert_eq!(content, [false, true, true, true]);
}

#[test]
fn a_list_mostly_kept_is_kept_whole_but_not_a_list_of_sections() {
    let page = cdom(
        "<body><p>What you need:</p><ul><li>Two cups of flour, sifted twice</li><li>Salt</li>\
         <li><a href=/y>Yeast</a></li><li>Water<ul><li>Warm</li><li>Cold</li></ul></li></ul><p>After the list.</p></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts, ["What you need:", "Two cups of flour, sifted twice", "Salt", "Yeast", "Water", "Warm", "Cold", "After the list."]);
    // The outer list's items, links too; the nested list is a list of its own (none kept).
    let mut content = vec![true, true, false, false, false, false, false, true];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [true, true, true, true, true, false, false, true]);
    // A nested list mostly kept is filled alone.
    let mut content = vec![false, false, false, false, false, true, false, false];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [false, false, false, false, false, true, true, false]);
    // Under the share kept, nothing is added; nor to a list with an item over the limit.
    let mut content = vec![false, false, true, false, false, false, false, false];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [false, false, true, false, false, false, false, false]);
    let mut content = vec![true, true, false, false, false, false, false, true];
    page.fill_lists(&mut content, 0.5, 4, None);
    assert_eq!(content, [true, true, false, false, false, false, false, true]);
}

#[test]
fn a_list_announced_by_a_kept_sentence_is_kept_whole() {
    let page = cdom(
        "<body><p>Here are some of the courses we found:</p><ul><li><a href=/a>Machine learning for everyone</a></li>\
         <li><a href=/b>Statistics</a></li><li><a href=/c>Databases</a></li><li><a href=/d>Linear algebra</a></li></ul>\
         <p>Tags:</p><ul><li>Data</li><li>Online courses</li><li>Free learning</li></ul></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts.len(), 9, "{texts:?}");
    // One item of four kept (an eighth of the words): the sentence's colon announces the list.
    let mut content = vec![true, false, true, false, false, true, true, false, false];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [true, true, true, true, true, true, true, false, false], "a label ('Tags:') announces nothing");
    // Without the sentence kept, nothing is added.
    let mut content = vec![false, false, true, false, false, false, false, false, false];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [false, false, true, false, false, false, false, false, false]);
    // With it kept, the list is read whole even where the trees kept none of its links.
    let mut content = vec![true, false, false, false, false, false, false, false, false];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [true, true, true, true, true, false, false, false, false]);
    // Not a list of sections (an item over the word limit: comments, posts).
    let mut content = vec![true, false, false, false, false, false, false, false, false];
    page.fill_lists(&mut content, 0.5, 3, None);
    assert_eq!(content, [true, false, false, false, false, false, false, false, false]);
}

#[test]
fn a_list_inside_the_kept_text_is_kept_whole_when_the_trees_half_agree() {
    let page = cdom(
        "<body><p>Kaggle offers fifteen free courses on data science.</p><ul><li><a href=/a>Python</a></li>\
         <li><a href=/b>Intro to SQL</a></li></ul><p>Each course takes a few hours to finish.</p>\
         <h2>Home</h2><ul><li><a href=/n>News</a></li></ul><p>Every page ends with this notice.</p></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Kaggle offers fifteen free courses on data science.",
            "Python",
            "Intro to SQL",
            "Each course takes a few hours to finish.",
            "Home",
            "News",
            "Every page ends with this notice."
        ]
    );
    let kept = [true, false, false, true, false, false, true];
    let fill = |probabilities: &[f64], cut: f64, kept: &[bool]| {
        let mut content = kept.to_vec();
        page.fill_lists(&mut content, 0.5, 50, Some(ListEvidence { probabilities, cut }));
        content
    };
    // The trees give the course links 0.3 where the page's cut is 0.5: more than half of it.
    let doubted = [0.9, 0.3, 0.3, 0.9, 0.1, 0.3, 0.9];
    assert_eq!(fill(&doubted, 0.5, &kept), [true, true, true, true, false, false, true], "a heading is no sentence before the menu");
    // A box the trees are sure of is not content (0.2 under half the cut), nor a list
    // without evidence, nor one after which the text is dropped.
    assert_eq!(fill(&[0.9, 0.2, 0.2, 0.9, 0.1, 0.3, 0.9], 0.5, &kept), kept);
    let mut content = kept.to_vec();
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, kept);
    let dropped_after = [true, false, false, false, false, false, true];
    assert_eq!(fill(&doubted, 0.5, &dropped_after), dropped_after);
}

#[test]
fn a_sentence_split_by_its_link_still_announces_the_list() {
    let page = cdom(
        "<body><p>The academy offers ninety courses, <a href=/all>many with certificates</a>. Here is a selection:</p>\
         <ul><li><a href=/a>Marketing</a></li><li><a href=/b>Search</a></li></ul></body>",
    );
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    assert_eq!(texts.len(), 5, "{texts:?}");
    assert!(texts[2].ends_with("selection:") && page.nodes[page.leaves[2]].stats.words < INTRODUCTION_WORDS, "{texts:?}");
    // The line's words count, from the leaf that starts it.
    let mut content = vec![true, true, true, false, false];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [true, true, true, true, true]);
    // Alone, the leaf that closes the sentence is a label's length.
    let mut content = vec![false, false, true, false, false];
    page.fill_lists(&mut content, 0.5, 50, None);
    assert_eq!(content, [false, false, true, false, false]);
}

#[test]
fn a_line_said_again_is_left_out_but_not_a_short_label_a_cell_or_code() {
    let copy = "<p>Designed for every day, and built to last a <b>lifetime</b>.</p>";
    let page = cdom(&format!(
        "<body>{copy}<p>Vintage Blue</p><p>Our story began in a garage.</p>{copy}<p>Vintage Blue</p>\
         <table><tr><td>Shipping is free on every order</td></tr><tr><td>Shipping is free on every order</td></tr></table>\
         <pre>let total = price * quantity;\nlet total = price * quantity;</pre><pre>let total = price * quantity;</pre></body>"
    ));
    let texts: Vec<&str> = page.leaves.iter().map(|&l| page.nodes[l].text.as_str()).collect();
    let mut content = vec![true; texts.len()];
    page.drop_repeated_lines(&mut content);
    let kept = page.text_of(&content);
    // The second copy of the sentence (two blocks, one line) goes; the first stays.
    assert_eq!(kept.matches("Designed for every day").count(), 1, "{kept}");
    assert!(kept.starts_with("Designed for every day, and built to last a lifetime."), "{kept}");
    // A two-word label, table cells and code stay however often they repeat.
    assert_eq!(kept.matches("Vintage Blue").count(), 2, "{kept}");
    assert_eq!(kept.matches("Shipping is free on every order").count(), 2, "{kept}");
    assert_eq!(kept.matches("let total = price * quantity;").count(), 3, "{kept}");
    // Only kept lines count: the first copy dropped, the second is the page's.
    let mut content = vec![true; texts.len()];
    content[0] = false;
    content[1] = false;
    content[2] = false;
    page.drop_repeated_lines(&mut content);
    assert_eq!(page.text_of(&content).matches("Designed for every day").count(), 1);
}
