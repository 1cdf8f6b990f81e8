// The strict XML reader behind `verify`: what it accepts, and where it stops.
#include <catch2/catch.hpp>

#include "gpuadvisor/verify/xml.hpp"

using gpuadvisor::verify::parse_xml;

namespace {

std::string xml_error(std::string_view text) {
  auto r = parse_xml(text, "f.xml");
  REQUIRE_FALSE(r);
  return r.error().path + ": " + r.error().message;
}

}  // namespace

TEST_CASE("xml: elements, attributes, entities, comments, CDATA and a DOCTYPE", "[verify][xml]") {
  const auto r = parse_xml(
      "\xEF\xBB\xBF<?xml version=\"1.0\" ?>\n<!DOCTYPE log SYSTEM \"x.dtd\">\n<!-- c -->\n"
      "<log a='1' b=\"&lt;&#65;&#x42;\">\n  <x>  a &amp; b "
      "</x><y/><z><![CDATA[<raw>]]></z>\n</log>\n",
      "f.xml");
  REQUIRE(r);
  CHECK(r->name == "log");
  CHECK(r->attribute("a") == "1");
  CHECK(r->attribute("b") == "<AB");
  REQUIRE(r->children.size() == 3);
  CHECK(r->child("x")->text == "a & b");
  CHECK(r->child("x")->line == 5);
  CHECK(r->child("x")->column == 3);
  CHECK(r->child("y")->children.empty());
  CHECK(r->child("z")->text == "<raw>");
  CHECK(r->all("x").size() == 1);
  CHECK(r->child("w") == nullptr);
}

TEST_CASE("xml: malformed documents are refused at their line and column", "[verify][xml]") {
  CHECK(xml_error("") == "line 1, column 1: expected the root element, found the end of the text");
  CHECK(xml_error("<a><b></a>") ==
        "line 1, column 9: expected </b> (opened at line 1, column 4), found </a>");
  CHECK(xml_error("<a>\n<b>x") ==
        "line 2, column 5: the text ends inside <b> (opened at line 2, column 1)");
  CHECK(xml_error("<a></a><b/>") ==
        "line 1, column 8: expected the end of the document after the root element");
  CHECK(xml_error("<a x='1' x='2'/>") == "line 1, column 10: attribute 'x' repeated in <a>");
  CHECK(xml_error("<a>&bogus;</a>") == "line 1, column 4: unknown entity '&bogus;'");
  CHECK(xml_error("<a>&#0;</a>") == "line 1, column 4: invalid character reference '&#0;'");
  CHECK(xml_error("<a>\x01</a>") == "line 1, column 4: control character 0x01 in text");
  CHECK(xml_error("<!DOCTYPE a [<!ENTITY e \"x\">]><a/>") ==
        "line 1, column 13: a DOCTYPE with an internal subset is not accepted");
  CHECK(xml_error("<a>\xC3\x28</a>") ==
        "line 1, column 4: byte 0xC3 is not UTF-8 (expected a UTF-8 XML document)");
  // Overlong encodings and surrogates are not UTF-8 either.
  CHECK(xml_error("<a>\xC0\xAF</a>").starts_with("line 1, column 4: byte 0xC0"));
  CHECK(xml_error("<a>\xED\xA0\x80</a>").starts_with("line 1, column 4: byte 0xED"));
}

TEST_CASE("xml: nesting deeper than the limit is refused, not recursed", "[verify][xml]") {
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "<a>";
  CHECK(xml_error(deep) == "line 1, column 97: elements nested deeper than 32 levels");
}
