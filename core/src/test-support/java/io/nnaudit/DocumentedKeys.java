package io.nnaudit;

import java.util.Map;
import java.util.TreeMap;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The keys documented in conf/nnaudit-default.xml, with their defaults as written (an empty value included). */
public final class DocumentedKeys {
  private DocumentedKeys() {
  }

  /** key -> default, every property of the file; Hadoop's Configuration would leave out the empty ones. */
  public static Map<String, String> defaults() {
    try {
      Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
          .parse(RepoRoot.resolve("conf/nnaudit-default.xml").toFile());
      NodeList props = doc.getElementsByTagName("property");
      Map<String, String> m = new TreeMap<>();
      for (int i = 0; i < props.getLength(); i++) {
        Element p = (Element) props.item(i);
        m.put(p.getElementsByTagName("name").item(0).getTextContent().trim(),
            p.getElementsByTagName("value").item(0).getTextContent().trim());
      }
      return m;
    } catch (Exception e) {
      throw new IllegalStateException("cannot read conf/nnaudit-default.xml", e);
    }
  }
}
