//! The lite renderer, checked by structure (boxes, positions, ink), not by pixels.

use std::collections::BTreeSet;

use super::layout::PlacedBox;
use super::*;
use crate::dom::Dom;

fn dom(html: &str) -> Dom {
    Dom::parse_with_styles(html, crate::dom::DomLimits { max_elements: 100_000, deadline: None }).unwrap_or_else(|_| Dom::empty())
}

fn boxes_with_class(html: &str, class: &str) -> Vec<PlacedBox> {
    let page = dom(html);
    let layout = layout_lite(&page, &RenderOptions::default()).expect("layout");
    layout.boxes().into_iter().filter(|b| b.element.and_then(|e| page.element(e)).is_some_and(|e| e.class().split_whitespace().any(|c| c == class))).collect()
}

fn cards(style: &str, wrapper: &str) -> String {
    let cards: String = (0..20).map(|i| format!("<div class=card><img width=100 height=60><a href=/p{i}>Product {i}</a><span>$9.99</span></div>")).collect();
    format!("<html><head><style>{style}</style></head><body><div class={wrapper}>{cards}</div></body></html>")
}

/// Distinct rounded coordinates.
fn distinct(values: impl Iterator<Item = f32>) -> usize {
    values.map(|v| v.round() as i64).collect::<BTreeSet<_>>().len()
}

#[test]
fn twenty_cards_in_a_css_grid_make_a_grid() {
    let boxes = boxes_with_class(&cards(".grid{display:grid;grid-template-columns:repeat(4,1fr);gap:10px}", "grid"), "card");
    assert_eq!(boxes.len(), 20);
    assert_eq!(distinct(boxes.iter().map(|b| b.x)), 4, "four columns: {boxes:?}");
    assert_eq!(distinct(boxes.iter().map(|b| b.y)), 5, "five rows");
}

#[test]
fn twenty_cards_in_a_wrapping_flex_row_share_rows() {
    let boxes = boxes_with_class(&cards(".row{display:flex;flex-wrap:wrap} .card{width:200px}", "row"), "card");
    assert_eq!(boxes.len(), 20);
    // 1024 - 16 px of body margin holds five 200 px cards a row.
    assert_eq!(distinct(boxes.iter().map(|b| b.y)), 4);
    assert_eq!(distinct(boxes.iter().map(|b| b.x)), 5);
}

#[test]
fn inline_blocks_and_floats_line_up_too() {
    for style in [".card{display:inline-block;width:23%}", ".card{float:left;width:23%}"] {
        let boxes = boxes_with_class(&cards(style, "list"), "card");
        assert_eq!(boxes.len(), 20, "{style}");
        assert!(distinct(boxes.iter().map(|b| b.y)) <= 6, "{style}: cards should share rows: {boxes:?}");
        assert!(distinct(boxes.iter().map(|b| b.x)) >= 4, "{style}");
    }
}

#[test]
fn an_articles_paragraphs_stack() {
    let paragraphs: String = (0..5).map(|i| format!("<p class=para>Paragraph {i} {}</p>", "words of running text ".repeat(30))).collect();
    let boxes = boxes_with_class(&format!("<h1>Title</h1>{paragraphs}"), "para");
    assert_eq!(boxes.len(), 5);
    assert_eq!(distinct(boxes.iter().map(|b| b.x)), 1, "one column");
    for pair in boxes.windows(2) {
        assert!(pair[1].y >= pair[0].y + pair[0].height, "paragraphs overlap: {pair:?}");
        assert!(pair[0].height > 40.0, "600 characters should wrap to several lines: {pair:?}");
    }
}

#[test]
fn a_display_none_subtree_paints_nothing() {
    let text = "<p>".to_owned() + &"hidden words ".repeat(200) + "</p><img width=300 height=200>";
    let hidden = render_lite(&dom(&format!("<style>.menu{{display:none}}</style><div class=menu>{text}</div>")), &RenderOptions::default());
    assert_eq!(hidden.picture.ink_share(), 0.0);
    let attr = render_lite(&dom(&format!("<div hidden>{text}</div><div style='display: none'>{text}</div>")), &RenderOptions::default());
    assert_eq!(attr.picture.ink_share(), 0.0);
    let shown = render_lite(&dom(&format!("<div>{text}</div>")), &RenderOptions::default());
    assert!(shown.picture.ink_share() > 0.05);
}

#[test]
fn descendant_rules_match_through_the_ancestor_filter() {
    let html = "<style>.nav .item{display:none} #main > p {width:100px}</style><div class=nav><ul><li class=item>a</li></ul></div><li class=item id=kept>b</li><div id=main><p class=p>x</p></div>";
    let page = dom(html);
    let layout = layout_lite(&page, &RenderOptions::default()).expect("layout");
    let items: Vec<_> =
        layout.boxes().into_iter().filter_map(|b| page.element(b.element?).map(|e| (e.attr("id").map(str::to_owned), e.tag().to_owned(), b.width))).collect();
    assert!(items.iter().any(|(id, _, _)| id.as_deref() == Some("kept")), "an .item outside .nav stays");
    assert_eq!(items.iter().filter(|(_, tag, _)| tag == "li").count(), 1, "the .item inside .nav is hidden");
    assert!(items.iter().any(|(_, tag, w)| tag == "p" && (*w - 100.0).abs() < 0.5));
}

#[test]
fn inline_svg_paints() {
    let svg = "<svg width=200 height=200 viewBox='0 0 10 10'><rect width='10' height='10' fill='#ff0000'/></svg>";
    let picture = render_lite(&dom(svg), &RenderOptions::default()).picture;
    let red = picture.rgb.chunks_exact(3).filter(|p| p[0] > 200 && p[1] < 60 && p[2] < 60).count();
    // 200 css px at 224/1024 is about 44 px a side.
    assert!(red > 1500, "red pixels: {red}");
}

#[test]
fn the_same_page_renders_identically_twice() {
    let html = cards(".grid{display:grid;grid-template-columns:repeat(3,1fr)}", "grid") + "<svg width=40 height=40><circle cx=20 cy=20 r=10 /></svg>";
    let a = render_lite(&dom(&html), &RenderOptions::default());
    let b = render_lite(&dom(&html), &RenderOptions::default());
    assert_eq!(a.picture, b.picture);
    assert_eq!((a.picture.width, a.picture.height), (224, 224));
}

#[test]
fn full_pictures_follow_the_page_height_within_the_bound() {
    let long = "<p>".to_owned() + &"text ".repeat(20_000) + "</p>";
    let options = RenderOptions { full: true, max_page_height: 4096.0, ..RenderOptions::default() };
    let rendered = render_lite(&dom(&long), &options);
    assert_eq!(rendered.limit, Some(RenderLimit::PageTooTall));
    assert_eq!(rendered.picture.height, (4096.0f32 * 224.0 / 1024.0).round() as u32);
}

#[test]
fn bounds_cut_the_page_and_say_so() {
    let many: String = "<div>x</div>".repeat(500);
    let rendered = render_lite(&dom(&many), &RenderOptions { max_boxes: 100, ..RenderOptions::default() });
    assert_eq!(rendered.limit, Some(RenderLimit::TooManyBoxes));
    assert!(rendered.picture.ink_share() > 0.0, "what came before the bound is drawn");

    let deep = "<div>".repeat(3000) + "deep" + &"</div>".repeat(3000);
    let rendered = render_lite(&dom(&deep), &RenderOptions::default());
    assert_eq!(rendered.limit, Some(RenderLimit::TooDeep));
}

#[test]
fn media_queries_follow_the_viewport_width() {
    assert!(css::media_matches("screen and (min-width: 768px)", 1024.0));
    assert!(!css::media_matches("(max-width: 767px)", 1024.0));
    assert!(!css::media_matches("print", 1024.0));
    assert!(css::media_matches("print, (min-width: 60em)", 1024.0));
    assert!(css::media_matches("not print", 1024.0));
}

#[test]
fn the_cascade_honours_specificity_order_and_important() {
    let html = "<style>#x{width:300px} div{width:100px!important} .c{width:200px}</style><div id=x class=c style='width:50px'>t</div><p class=c style='width:10px'>t</p>";
    let page = dom(html);
    let layout = layout_lite(&page, &RenderOptions::default()).expect("layout");
    let width = |tag: &str| layout.boxes().into_iter().find(|b| b.element.and_then(|e| page.element(e)).is_some_and(|e| e.tag() == tag)).map(|b| b.width);
    assert_eq!(width("div"), Some(100.0), "!important beats the style attribute and ids");
    assert_eq!(width("p"), Some(10.0), "the style attribute beats a class");
}

#[test]
fn colors_and_lengths_parse() {
    assert_eq!(style::parse_color("#fff"), Some([255, 255, 255, 255]));
    assert_eq!(style::parse_color("rgba(10, 20, 30, 0.5)"), Some([10, 20, 30, 127]));
    assert_eq!(style::parse_color("Navy"), Some([0, 0, 128, 255]));
    assert_eq!(style::parse_color("url(x.png)"), None);
    assert_eq!(style::parse_length("2em", 10.0), Some(style::Length::Px(20.0)));
    assert_eq!(style::parse_length("50%", 10.0), Some(style::Length::Percent(0.5)));
    assert_eq!(style::parse_length("calc(100% - 2px)", 10.0), None);
}

#[test]
fn sheets_survive_broken_css() {
    let page = dom(
        "<style>.a{color:red</style><style>}} .b{display:none} @media screen{.c{display:none}} @import url(x.css); .d{</style><p class=b>b</p><p class=c>c</p><p class=e>e</p>",
    );
    let layout = layout_lite(&page, &RenderOptions::default()).expect("layout");
    let shown: Vec<String> =
        layout.boxes().into_iter().filter_map(|b| page.element(b.element?)).filter(|e| e.tag() == "p").map(|e| e.class().to_owned()).collect();
    assert_eq!(shown, vec!["e".to_string()]);
}

#[test]
fn text_runs_wrap_at_the_box_width() {
    let run = layout::Run {
        segments: vec![layout::Segment { kind: layout::SegmentKind::Text(style::Ink::Text), width: 250.0, height: 20.0, min_width: 40.0 }],
        align: None,
    };
    let (placed, height) = run.lines(100.0);
    assert_eq!(placed.len(), 3);
    assert_eq!(height, 60.0);
    assert!(placed.iter().all(|p| p.width <= 100.0));
}

#[test]
fn hostile_css_and_markup_never_panic() {
    let pages = [
        "<div style='width:1e30px;height:-5px;margin:NaNpx;padding:-1e9px'>x</div>",
        "<div style='display:grid;grid-template-columns:repeat(100000, 1fr) repeat(auto-fill, minmax(0px, 1fr))'><p>a</p><p style='grid-column: -70000 / span 60000'>b</p></div>",
        "<div style='display:flex;flex:1e40 -3 99999999px;gap:1e20px'><span style='flex-basis:200%'>x</span></div>",
        "<style>@media (min-width:{{{ } .a{display:grid} } * { margin: 10px } ::before{} :hover{} a:not(.b, .c)::after{}</style><a class=a href=x>t</a>",
        "<svg viewBox='0 0 0 0'><rect width='1e30'/></svg><svg width=-10 height=1e9><path d='M0 0 L'/></svg><svg><script>x</script><foreignObject><div>x</div></foreignObject></svg>",
        "<table><tr><td colspan=100000 width=1e12>x</td></tr></table><img width=99999999 height=99999999>",
        "<p style='font-size:1e30px'>big</p><p style='font-size:-4px'>neg</p><br><br><br>",
        "\u{0}<\u{feff}div style='\u{0}display:\u{0}flex'>\u{fffd}</div>",
    ];
    for html in pages {
        for full in [false, true] {
            let rendered = render_lite(&dom(html), &RenderOptions { full, ..RenderOptions::default() });
            assert_eq!(rendered.picture.width, 224, "{html}");
            assert_eq!(rendered.picture.rgb.len(), (rendered.picture.width * rendered.picture.height * 3) as usize);
        }
    }
}

#[test]
fn picture_cards_without_their_stylesheet_are_drawn_as_a_grid() {
    // A shop's grid CSS lives in an external file the WARC record does not hold.
    let boxes = boxes_with_class(&cards("", "list").replace("height=60", "height=80"), "card");
    assert_eq!(boxes.len(), 20);
    assert!(distinct(boxes.iter().map(|b| b.x)) >= 4, "cards should share rows: {boxes:?}");
    assert!(distinct(boxes.iter().map(|b| b.y)) <= 5);
}

#[test]
fn comments_with_avatars_and_sections_with_long_text_still_stack() {
    let comments: String = (0..6).map(|i| format!("<li class=comment><img width=48 height=48><b>user{i}</b><p>Nice post, thanks.</p></li>")).collect();
    let boxes = boxes_with_class(&format!("<ol>{comments}</ol>"), "comment");
    assert_eq!(boxes.len(), 6);
    assert_eq!(distinct(boxes.iter().map(|b| b.x)), 1, "avatars are icons, not card pictures: {boxes:?}");

    let section = format!("<img><p>{}</p>", "a long paragraph of running text ".repeat(20));
    let sections: String = (0..4).map(|_| format!("<section class=part>{section}</section>")).collect();
    let boxes = boxes_with_class(&format!("<article>{sections}</article>"), "part");
    assert_eq!(boxes.len(), 4);
    assert_eq!(distinct(boxes.iter().map(|b| b.x)), 1, "sections with long text are not cards: {boxes:?}");

    let text_only: String = (0..6).map(|i| format!("<div class=row>Row {i}</div>")).collect();
    let boxes = boxes_with_class(&format!("<div>{text_only}</div>"), "row");
    assert_eq!(distinct(boxes.iter().map(|b| b.x)), 1, "no pictures, no cards");
}

#[test]
fn rules_on_escaped_class_names_apply() {
    // Utility-class sheets escape `:` and `/` in class names; the rule is keyed by the unescaped name.
    let html = r"<style>@media (min-width:768px){.md\:hidden{display:none}} .w-1\/2{width:50%}</style><p class='md:hidden part'>mobile</p><div class='w-1/2 part'>half</div>";
    let boxes = boxes_with_class(html, "part");
    assert_eq!(boxes.len(), 1, "md:hidden is hidden at 1024 px: {boxes:?}");
    assert!((boxes[0].width - 504.0).abs() < 1.0, "w-1/2 is half the body: {boxes:?}");
}
