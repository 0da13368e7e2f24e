package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/** A frame's SVG parsed as XML, with helpers to read its texts and shapes. */
final class SvgText {

    final Document doc;

    SvgText(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        doc = f.newDocumentBuilder().parse(new InputSource(new StringReader(svg)));
        assertEquals("svg", doc.getDocumentElement().getLocalName());
        assertEquals("http://www.w3.org/2000/svg", doc.getDocumentElement().getNamespaceURI());
    }

    /** The content of every {@code <text>} element, in document order. */
    List<String> texts() {
        NodeList nodes = doc.getElementsByTagNameNS("*", "text");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add(nodes.item(i).getTextContent());
        }
        return out;
    }

    boolean hasText(String exact) {
        return texts().contains(exact);
    }

    boolean hasTextStartingWith(String prefix) {
        return texts().stream().anyMatch(t -> t.startsWith(prefix));
    }

    /** The {@code d} attribute of every {@code <path>}. */
    List<String> paths() {
        NodeList nodes = doc.getElementsByTagNameNS("*", "path");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add(nodes.item(i).getAttributes().getNamedItem("d").getNodeValue());
        }
        return out;
    }
}
